// @effect/cli prints its own parse errors ("Received unknown argument: '--bogus'", "Missing
// argument <id>", "'abc' is not a integer") without the `error:` of every other message. This
// rewrites exactly those shapes, on the way to stderr, into the CLI's own wording, with where to
// look next; any other text passes unchanged.

const RULES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^Received unknown argument: '(-.*)'$/s, (m) => `unknown option ${m[1]}`],
  [/^Received unknown argument: '(.*)'$/s, (m) => `unexpected argument ${JSON.stringify(m[1])}`],
  [/^Missing argument (<[^>]+>)$/s, (m) => `missing argument ${m[1]}`],
  [
    /^'(.*)' is not a (\w+)$/s,
    (m) => `${JSON.stringify(m[1])} is not ${/^[aeiou]/.test(m[2]!) ? "an" : "a"} ${m[2]}`,
  ],
]

/**
 * The CLI's wording of one of @effect/cli's parse errors (`command`: the words naming the
 * command, for the help hint), or undefined for any other text.
 */
export const usageMessage = (text: string, command: ReadonlyArray<string>): string | undefined => {
  const trimmed = text.trim()
  for (const [pattern, render] of RULES) {
    const m = pattern.exec(trimmed)
    if (m) return `error: ${render(m)} (see \`${["supervisor", ...command].join(" ")} --help\`)`
  }
  return undefined
}
