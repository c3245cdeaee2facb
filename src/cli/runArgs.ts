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

/** The words after `--` of this process's `run` or `daemons add`, while @effect/cli parses the rest. */
let heldCommand: ReadonlyArray<string> | undefined

/** Whether argv is a command that takes a command after `--`, and where its own words start. */
const commandTaker = (argv: ReadonlyArray<string>): number | undefined =>
  argv[2] === "run" ? 3 : argv[2] === "daemons" && argv[3] === "add" ? 4 : undefined

/**
 * For a `run` or a `daemons add`: the argv @effect/cli is given, with the command after `--`
 * replaced by one placeholder word, and the command kept here for the action
 * (`runCommandWords`). @effect/cli takes its own options (`--help`, `--version`, `--wizard`, ...)
 * wherever they are, even after `--`: `run x -- grep --help` would print the help instead of
 * running `grep --help`.
 */
export const holdRunCommand = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const start = commandTaker(argv)
  const dashes = start === undefined ? -1 : argv.indexOf("--", start)
  if (dashes < 0) return argv
  heldCommand = argv.slice(dashes + 1)
  return [...argv.slice(0, dashes + 1), "command"]
}

/**
 * `daemons add ID CMD ARGS...` as `daemons add ID -- CMD ARGS...` (pitchfork's form without the
 * `--`): the word after the ID starts the command, and everything from it on is the command's,
 * flags included (`daemons add api bun --hot server.ts`). Flags before it are ours.
 */
export const dashAddCommand = (
  argv: ReadonlyArray<string>,
  takesValue: (flag: string) => boolean,
): ReadonlyArray<string> => {
  if (argv[2] !== "daemons" || argv[3] !== "add") return argv
  let positional = 0
  for (let i = 4; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === "--") return argv
    if (arg.startsWith("-") && arg !== "-") {
      if (takesValue(arg)) i++
      // `--bump` takes an optional value (portFlags.ts)
      else if (arg === "--bump" && /^(-?\d+|true|false)$/.test(argv[i + 1] ?? "")) i++
      continue
    }
    if (++positional === 2) return [...argv.slice(0, i), "--", ...argv.slice(i)]
  }
  return argv
}

/** The command of a `run`: as main.ts held it, else as @effect/cli parsed it. */
export const runCommandWords = (parsed: ReadonlyArray<string>): ReadonlyArray<string> => heldCommand ?? parsed
