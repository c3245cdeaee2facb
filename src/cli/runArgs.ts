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
