// Checks of the raw arguments that @effect/cli gets wrong: a flag that needs a value but has
// none (`start --group` at the end reads "unknown option --group"; `start --group --delay 1`
// takes `--delay` for the group's name). test/cli/argvChecks.test.ts keeps the list in step
// with the flags the CLI declares (its usage spec).

/** Every flag of the CLI that takes a value (`--bump` takes an optional one: not here). */
export const VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--cmd",
  "--delay",
  "--expected-port",
  "--format",
  "--grep",
  "--group",
  "-g",
  "--http",
  "--lang",
  "--lines",
  "-n",
  "--namespace",
  "--out",
  "--output",
  "--port",
  "--regex",
  "--shell",
  "--since",
  "--status",
  "--until",
  "--web-port",
])

/** `X needs a value` for the first value flag with nothing (or another long flag) after it. */
export const missingValueProblem = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") return undefined // what follows is a command's, verbatim
    if (!VALUE_FLAGS.has(arg)) continue
    const next = args[i + 1]
    if (next === undefined || next.startsWith("--"))
      return `${arg} needs a value${next === undefined ? "" : ` (it is followed by ${next})`}`
    i++
  }
  return undefined
}
