// @effect/cli prints its own parse errors ("Received unknown argument: '--bogus'", "Missing
// argument <id>", "'abc' is not a integer", "Expected to find option: '--out'"), several at once
// separated by a blank line, without the `error:` of every other message. This rewrites exactly
// those shapes, on the way to stderr, into the CLI's own wording, with where to look next; any
// other text passes unchanged.
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

/** The flag that was given `value` (`-n abc`, `--lines=abc`, `-nabc`), as typed, up to a `--`. */
const flagOfValue = (value: string, args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") return undefined
    if (!arg.startsWith("-")) continue
    if (arg.startsWith("--") && arg.includes("=")) {
      const [flag, attached] = arg.split(/=(.*)/s)
      if (attached === value) return flag
    } else if (args[i + 1] === value) return arg
    else if (!arg.startsWith("--") && arg.length > 2 && arg.slice(2) === value) return arg.slice(0, 2)
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
    /^Missing argument (<[^>]+>) with choices (.*)$/s,
    (m) => `missing argument ${m[1]}: one of ${m[2]!.split(" | ").join(", ")}`,
  ],
  [/^Expected to find option: '(-[^']+)'$/s, (m) => `missing option ${m[1]}`],
  [
    /^'(.*)' is not a (\w+)$/s,
    (m, args) => {
      const flag = flagOfValue(m[1]!, args)
      const what = `${JSON.stringify(m[1])}${flag === undefined ? " is" : ":"} not ${/^[aeiou]/.test(m[2]!) ? "an" : "a"} ${m[2]}`
      return flag === undefined ? what : `${flag} ${what}`
    },
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
  // several errors at once come separated by a blank line: each is rewritten, or none is
  const parts = text.trim().split(/\n\s*\n/)
  const rendered: Array<string> = []
  for (const part of parts) {
    const one = renderOne(part.trim(), command, args)
    if (one === undefined) return undefined
    rendered.push(`error: ${one}`)
  }
  return `${rendered.join("\n")} (see \`${["supervisor", ...command].join(" ")} --help\`)`
}

const renderOne = (
  text: string,
  command: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
): string | undefined => {
  for (const [pattern, render] of RULES) {
    const m = pattern.exec(text)
    if (m) return render(m, args, command)
  }
  return undefined
}
