// `supervisor run ID [FLAGS] -- CMD...`: the command is everything after the first `--`,
// verbatim. @effect/cli would take a flag it does not know (`run x --bogus -- echo hi`) or a
// missing ID (`run -- echo x`) as part of the repeated command argument, so main.ts checks the
// part before `--` on its own first (with the flags of `run` and the ID only: `runFlagsCommand`).

const asksForHelp = (args: ReadonlyArray<string>) => args.some((a) => a === "--help" || a === "-h")

/**
 * For `argv` of a `run` (argv[2] === "run"): what comes between `run` and the first `--` (the ID
 * and the flags), or why the arguments cannot be a run (a usage error). Undefined when this is
 * no `run`, or when it asks for help.
 */
export const runHead = (
  argv: ReadonlyArray<string>,
): ReadonlyArray<string> | { readonly problem: string } | undefined => {
  if (argv[2] !== "run") return undefined
  const rest = argv.slice(3)
  const dashes = rest.indexOf("--")
  const head = dashes < 0 ? rest : rest.slice(0, dashes)
  if (asksForHelp(head)) return undefined
  if (dashes < 0) return { problem: "give the daemon's command after --: supervisor run ID -- CMD..." }
  if (dashes === rest.length - 1) return { problem: "nothing after --: supervisor run ID -- CMD..." }
  return head
}

/** The words after `--` of this process's `run`, while @effect/cli parses the rest. */
let heldCommand: ReadonlyArray<string> | undefined

/**
 * For a `run`: the argv @effect/cli is given, with the command after `--` replaced by one
 * placeholder word, and the command kept here for the action (`runCommandWords`). @effect/cli
 * takes its own options (`--help`, `--version`, `--wizard`, ...) wherever they are, even after
 * `--`: `run x -- grep --help` would print the help instead of running `grep --help`.
 */
export const holdRunCommand = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const dashes = argv.indexOf("--", 3)
  if (argv[2] !== "run" || dashes < 0) return argv
  heldCommand = argv.slice(dashes + 1)
  return [...argv.slice(0, dashes + 1), "command"]
}

/** The command of a `run`: as main.ts held it, else as @effect/cli parsed it. */
export const runCommandWords = (parsed: ReadonlyArray<string>): ReadonlyArray<string> => heldCommand ?? parsed
