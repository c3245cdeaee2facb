// @effect/cli prints its own parse errors ("Received unknown argument: '--bogus'", "Missing
// argument <id>", "'abc' is not a integer") without the `error:` of every other message. This
// rewrites exactly those shapes, on the way to stderr, into the CLI's own wording, with where to
// look next; any other text passes unchanged.
import { argvTables } from "./argvTables.js"

/**
 * The flag typed with a value outside its choices (`--level bogus`, `--level=bogus`), in
 * pitchfork's words: `invalid level 'bogus' for --level`.
 */
const badChoice = (args: ReadonlyArray<string>): string | undefined => {
  const choiceFlags = argvTables().choiceFlags
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") return undefined
    const [flag, attached] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined]
    const choices = Object.hasOwn(choiceFlags, flag!) ? choiceFlags[flag!] : undefined
    const value = attached ?? args[i + 1]
    if (choices !== undefined && value !== undefined && !choices.includes(value))
      return `invalid ${flag!.replace(/^-+/, "").replaceAll("-", " ")} '${value}' for ${flag}`
  }
  return undefined
}

type Rule = readonly [
  RegExp,
  (m: RegExpExecArray, args: ReadonlyArray<string>, command: ReadonlyArray<string>) => string,
]

/** `status` alone (or `stat`, pitchfork's alias) may be meant for every daemon: say where that is. */
const missingHint = (arg: string, command: ReadonlyArray<string>) =>
  arg === "<id>" && command.join(" ") === "status"
    ? ": the daemon to show; `supervisor list` shows every daemon"
    : ""

const RULES: ReadonlyArray<Rule> = [
  [
    /^Expected one of the following cases: (.*)$/s,
    (m, args) => {
      const what = badChoice(args)
      return `${what === undefined ? "" : `${what}; `}expected one of: ${m[1]!.split(", ").join(", ")}`
    },
  ],
  [/^Received unknown argument: '(-.*)'$/s, (m) => `unknown option ${m[1]}`],
  [/^Received unknown argument: '(.*)'$/s, (m) => `unexpected argument ${JSON.stringify(m[1])}`],
  [
    /^Missing argument (<[^>]+>)$/s,
    (m, _, command) => `missing argument ${m[1]}${missingHint(m[1]!, command)}`,
  ],
  [
    /^'(.*)' is not a (\w+)$/s,
    (m) => `${JSON.stringify(m[1])} is not ${/^[aeiou]/.test(m[2]!) ? "an" : "a"} ${m[2]}`,
  ],
]

/**
 * The CLI's wording of one of @effect/cli's parse errors (`command`: the words naming the
 * command, for the help hint; `args`: what was typed after the program), or undefined for any
 * other text.
 */
export const usageMessage = (
  text: string,
  command: ReadonlyArray<string>,
  args: ReadonlyArray<string> = [],
): string | undefined => {
  const trimmed = text.trim()
  for (const [pattern, render] of RULES) {
    const m = pattern.exec(trimmed)
    if (m)
      return `error: ${render(m, args, command)} (see \`${["supervisor", ...command].join(" ")} --help\`)`
  }
  return undefined
}
