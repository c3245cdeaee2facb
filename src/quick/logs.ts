// `supervisor logs ID [-n N] [--strip-ansi|--raw] [--no-timestamp]` without the CLI bundle: the launcher
// (scripts/launcher.cjs) asks the running supervisor for the lines as text
// (POST /api/cli/logs/text-from), which it resolves the ID for as the CLI would, and copies the
// answer to stdout as it comes. Any other form (several IDs, filters, --json, --tail, timestamps
// to colour on a terminal), no supervisor, another version, or an ID the CLI would complain about
// resolves false before anything is printed, and the full CLI runs.

import { VERSION } from "../domain/version.js"
import { isTTY, red } from "../terminal/style.js"
import { post } from "./request.js"

export interface LogsArgs {
  readonly id: string
  readonly lines: number
  readonly raw: boolean
  readonly noTimestamp: boolean
}

/** `logs` prints the last 100 lines unless told otherwise (src/cli/actions/logs.ts). */
const DEFAULT_LINES = 100

const count = (text: string | undefined): number | undefined =>
  text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined

/** The arguments after `logs` when they are of the simple form handled here; else undefined. */
export const parseLogsArgs = (args: ReadonlyArray<string>): LogsArgs | undefined => {
  const ids: Array<string> = []
  const seen = new Set<"lines" | "raw" | "noTimestamp">()
  let lines: number | undefined = DEFAULT_LINES
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    let flag: "lines" | "raw" | "noTimestamp"
    if (arg === "--strip-ansi" || arg === "--raw") flag = "raw"
    else if (arg === "--no-timestamp") flag = "noTimestamp"
    else if (arg === "-n" || arg === "--lines") {
      flag = "lines"
      lines = count(args[++i])
    } else if (arg.startsWith("--lines=") || /^-n\d/.test(arg)) {
      flag = "lines"
      lines = count(arg.slice(arg.startsWith("-n") ? 2 : "--lines=".length))
    } else if (arg.startsWith("-")) return undefined
    else {
      ids.push(arg)
      continue
    }
    // repeated flags and bad counts are the CLI's to judge
    if (seen.has(flag) || lines === undefined) return undefined
    seen.add(flag)
  }
  const [id] = ids
  if (ids.length !== 1 || id === undefined) return undefined
  return { id, lines, raw: seen.has("raw"), noTimestamp: seen.has("noTimestamp") }
}

/**
 * Prints the lines and resolves with the exit status (the launcher applies it), or resolves
 * false, with nothing printed, for the full CLI to run.
 */
export const quickLogs = async (args: ReadonlyArray<string>): Promise<number | false> => {
  const parsed = parseLogsArgs(args)
  // coloured timestamps are the full CLI's (they are plain text here)
  if (parsed === undefined || (!parsed.noTimestamp && isTTY())) return false
  const response = await post("/api/cli/logs/text-from", {
    version: VERSION,
    cwd: process.cwd(),
    env: process.env,
    id: parsed.id,
    lines: parsed.lines,
    raw: parsed.raw,
    timestamps: !parsed.noTimestamp,
  })
  if (response === undefined || response.status !== 200) {
    response?.close()
    return false
  }
  return new Promise((resolve) => {
    let done = false
    const finish = (broken: boolean) => {
      if (done) return
      done = true
      if (broken) {
        process.stderr.write(`${red("error:")} the supervisor stopped answering before the last line\n`)
      }
      resolve(broken ? 1 : 0)
    }
    // a pipe sets the pace (`| less`); a reader that goes away ends the process (the launcher)
    // (one socket read can hold many chunks: one wait for `drain` at a time)
    let draining = false
    response.receive(
      (chunk) => {
        if (process.stdout.write(chunk) || draining) return
        draining = true
        response.pause()
        process.stdout.once("drain", () => {
          draining = false
          response.resume()
        })
      },
      (whole) => finish(!whole),
    )
  })
}
