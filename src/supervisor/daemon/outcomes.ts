import type { DaemonStatus } from "../../domain/DaemonStatus.js"
import type { StartOutcome } from "../../domain/StartOutcome.js"
import type { ExitStatus } from "../../process/ProcessService.js"
import { isSuccessExit } from "../restartPolicy.js"
import type { Run } from "./run.js"

/**
 * The status a run's exit leaves: `stopped` for a success (an exit code listed in
 * `success_exit_codes`, by default 0), else `errored`.
 */
export const exitedStatus = (s: ExitStatus, successCodes: ReadonlyArray<number> = [0]): DaemonStatus => {
  // Not our child (adopted after a supervisor restart): how it ended cannot be known, and an
  // end nobody asked for counts as a crash.
  if (!s.known)
    return {
      type: "errored",
      exit_code: null,
      signal: null,
      message: "exited; its exit status is unknown (it was adopted after a supervisor restart)",
    }
  if (isSuccessExit(s, successCodes)) return { type: "stopped", exit_code: s.code, signal: null }
  return {
    type: "errored",
    exit_code: s.code,
    signal: s.signal,
    message: s.signal ? `killed by ${s.signal}` : `exited with code ${s.code}`,
  }
}

/** "exited with code 3", "was killed by SIGSEGV". */
export const describeExit = (s: ExitStatus) =>
  s.signal ? `was killed by ${s.signal}` : s.known ? `exited with code ${s.code}` : "exited"

/** The supervisor's log line of an exit nobody asked for: "exited with code 1", "killed by SIGKILL". */
export const exitNote = (s: ExitStatus) =>
  s.signal
    ? `killed by ${s.signal}`
    : s.known
      ? `exited with code ${s.code}`
      : "exited; its exit status is unknown (it was adopted after a supervisor restart)"

/** "restart 3 (restart = always)": the next run of a daemon restarted after any exit. */
export const alwaysNote = (restart: number) => `restart ${restart} (restart = always)`

/** "retry 2 of 3" (retry `retry` of `limit`), "retry 4" when unlimited. */
export const retryNote = (retry: number, limit: number) =>
  Number.isFinite(limit) ? `retry ${retry} of ${limit}` : `retry ${retry}`

export const readyOutcome = (id: string, run: Run, expected: ReadonlyArray<number>): StartOutcome => ({
  _tag: "Ready",
  id,
  pid: run.handle.pid,
  ...(run.ports.ports.length > 0 ? { ports: run.ports.ports } : {}),
  ...(run.ports.offset > 0 ? { expected_ports: expected } : {}),
})

export const startFailed = (
  id: string,
  message: string,
  exit: ExitStatus | undefined,
  output: ReadonlyArray<string>,
  cliStatus: number,
): StartOutcome => ({
  _tag: "StartFailed",
  id,
  message,
  exit_code: exit?.code ?? null,
  signal: exit?.signal ?? null,
  output: [...output],
  cli_status: cliStatus,
})

/** " (after 2 retries)" when there were retries. */
export const afterRetries = (attempt: number) =>
  attempt === 0 ? "" : ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})`
