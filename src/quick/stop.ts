// `supervisor stop` without the CLI bundle: for the common forms (`stop [IDS..] [--all] [--group G]
// [--quiet] [--json]`) the launcher sends the Stop command of the protocol (POST /api/commands)
// with the directory and environment (a strict `from`), and the running supervisor selects and
// stops the daemons as for the full CLI. This process prints the same lines as the CLI
// (src/terminal/stopText.ts). Anything else (other flags, no supervisor running, another version,
// configuration warnings, an ID to complain about, no ID and no `--all`) resolves false before
// anything was stopped or printed, and the full CLI runs. Half of a stop of 50 daemons was the
// CLI bundle's start-up (docs/benchmarks.md).

// the types only (erased by the build): this bundle loads no Effect
import type { StopResult } from "../domain/CliOutput.js"
import type { Stop } from "../domain/Command.js"
import { parseStopArgs, type StopArgs } from "../domain/quickForms.js"
import { VERSION, VERSION_HEADER } from "../domain/version.js"
import { NOTHING_TO_STOP, stopLine } from "../terminal/stopText.js"
import { dim } from "../terminal/style.js"
import { post, readAll } from "./request.js"
import { quickSelection } from "./start.js"

/** The Stop command of `stop ARGS`: strict, so that configuration warnings (which the CLI prints) refuse it. */
export const stopCommand = (parsed: StopArgs): typeof Stop.Encoded => ({
  _tag: "Stop",
  selection: quickSelection(parsed),
  reason: "cli",
})

const isResults = (value: unknown): value is ReadonlyArray<StopResult> =>
  Array.isArray(value) && value.every((r) => typeof r === "object" && r !== null && typeof r.id === "string")

/**
 * Runs `stop` through the supervisor and resolves with the exit status once it has printed the
 * results (the launcher applies it), or false, with nothing stopped or printed, for the CLI to run.
 */
export const quickStop = async (args: ReadonlyArray<string>): Promise<number | false> => {
  const parsed = parseStopArgs(args)
  if (parsed === undefined) return false
  // a supervisor of another version refuses it (409), as does one that cannot read the selection
  const response = await post("/api/commands", stopCommand(parsed), { [VERSION_HEADER]: VERSION })
  if (response === undefined) return false
  const text = await readAll(response)
  if (response.status !== 200 || text === undefined) return false
  let results: unknown
  try {
    results = JSON.parse(text)
  } catch {
    return false
  }
  if (!isResults(results)) return false
  // --json: the results as the supervisor encoded them (StopResults, as the CLI prints them)
  if (parsed.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
  else if (!parsed.quiet)
    process.stdout.write(
      results.length === 0 ? `${dim(NOTHING_TO_STOP)}\n` : results.map((r) => `${stopLine(r)}\n`).join(""),
    )
  return 0
}
