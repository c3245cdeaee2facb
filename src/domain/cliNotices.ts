// Autostop notices for the CLI (docs/shell.md): a request of the CLI carries CLI_HEADER, and the
// supervisor answers it with the notices not reported yet in NOTICES_HEADER, which the CLI prints
// on stderr. Requests without the header (browsers, API scripts) take none. Plain code, no Effect:
// the quick bundles (src/quick/) use it too.
import { showsOnStderr } from "./stderrLevel.js"

/** How long the shell hook's `supervisor cd` waits for the supervisor's answer before it gives up. */
export const CD_ANSWER_TIMEOUT_MS = 2_000

/**
 * Now on the machine's monotonic clock, in microseconds: every process reads the same clock
 * (CLOCK_MONOTONIC on Linux), so the order of two hooks' runs survives their reports' order, and
 * the supervisor can tell how long ago a hook ran.
 */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n)

/**
 * Whether the answer to a `cd` that ran at `at` (monotonicMicros) still finds its prompt waiting,
 * with half a second to spare: only such an answer takes the notices. A late one (a prompt that
 * gave up, or the background report that follows it) leaves them for the next command.
 */
export const cdAnswerAwaited = (at: number | undefined, now: number): boolean =>
  at === undefined || now - at < (CD_ANSWER_TIMEOUT_MS - 500) * 1000

/** Sent by every CLI request: "this client prints notices". */
export const CLI_HEADER = "x-supervisor-cli"
/** The notices in an answer: each URI-encoded (a header is ASCII), comma-separated. */
export const NOTICES_HEADER = "x-supervisor-notices"

export const encodeNotices = (notices: ReadonlyArray<string>): string =>
  notices.map(encodeURIComponent).join(",")

/** The notices of a header's value (none when absent or malformed). */
export const decodeNotices = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const parts = (typeof value === "string" ? [value] : (value ?? [])).flatMap((v) => v.split(","))
  const notices: Array<string> = []
  for (const part of parts) {
    if (part.trim() === "") continue
    try {
      notices.push(decodeURIComponent(part.trim()))
    } catch {
      // a malformed part is skipped: a notice is never worth a failed command
    }
  }
  return notices
}

/** The lines printed on stderr for a header's notices (`supervisor: autostopped proj/api`). */
export const noticeLines = (value: string | ReadonlyArray<string> | undefined): string =>
  decodeNotices(value)
    .map((n) => `supervisor: ${n}\n`)
    .join("")

/** Prints a header's notices on stderr (stdout stays for the command's output). */
export const printNotices = (value: string | ReadonlyArray<string> | undefined): void => {
  const lines = noticeLines(value)
  // notes: SUPERVISOR_LOG=warn (or lower) leaves them out
  if (lines !== "" && showsOnStderr("info")) process.stderr.write(lines)
}
