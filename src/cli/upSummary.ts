// The summary of `supervisor up`: one row per daemon (status, time to ready, ports, and for one
// that is not ready why and its last output lines), its exit status, and the table printed.
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { StopResult, UpDaemon, UpStatus, UpSummary } from "../domain/CliOutput.js"
import { READY_TIMEOUT_STATUS } from "../domain/StartOutcome.js"
import { cyan, dim, ExitCode, green, red, yellow } from "./output.js"
import { renderTable } from "./table.js"
import type { UpWait } from "./upWait.js"

/** How many output lines a row keeps of a daemon that is not ready. */
export const LAST_LINES = 3

/** Ready, running or completed: what `up` waits for. */
export const isUp = (status: UpStatus): boolean =>
  status === "ready" || status === "running" || status === "completed"

const STATUS: Record<string, UpStatus> = {
  Ready: "ready",
  AlreadyRunning: "running",
  Completed: "completed",
  StartFailed: "failed",
  Disabled: "disabled",
  Interrupted: "stopped",
}

/**
 * The rows of the summary, in start order. `known`: the supervisor's listing once the wait ended
 * (ports and pids of daemons without an outcome); `output`: the last log lines of the daemons that
 * are still starting.
 */
export const upRows = (
  wait: UpWait,
  known: ReadonlyArray<ApiDaemonEntry>,
  output: ReadonlyMap<string, ReadonlyArray<string>>,
  waitEnded: string,
): ReadonlyArray<UpDaemon> =>
  wait.ids.map((id): UpDaemon => {
    const entry = known.find((k) => k.id.qualified === id)
    const settled = wait.settled.get(id)
    const pid = entry?.pid ?? null
    const ports = entry?.resolved_port ?? []
    if (settled === undefined)
      return {
        id,
        status: "not_ready",
        ready_ms: null,
        pid,
        ports,
        message: waitEnded,
        output: output.get(id) ?? [],
      }
    const o = settled.outcome
    const status = STATUS[o._tag] ?? "failed"
    const ready_ms =
      (status === "ready" || status === "completed") && settled.ms !== undefined
        ? Math.round(settled.ms)
        : null
    const row = { id, status, ready_ms, pid, ports, output: [] }
    switch (o._tag) {
      case "Ready":
        return {
          ...row,
          pid: o.pid,
          ports: o.ports ?? ports,
          ...(o.proxy_url === undefined ? {} : { proxy_url: o.proxy_url }),
        }
      case "AlreadyRunning":
        // running but not ready yet: a start made before `up` is under way, and up did not wait for it
        return entry?.status.type === "waiting"
          ? {
              ...row,
              status: "not_ready",
              pid: o.pid ?? pid,
              message: "still starting: it was started before up, which does not wait for that start",
              output: output.get(id) ?? [],
            }
          : { ...row, pid: o.pid ?? pid }
      case "StartFailed":
        return { ...row, message: o.message, output: o.output.slice(-LAST_LINES) }
      case "Disabled":
        return { ...row, message: `it is disabled; run \`supervisor enable ${id}\` first` }
      case "Interrupted":
        return { ...row, message: "it was stopped while starting", output: output.get(id) ?? [] }
      default:
        return row
    }
  })

/**
 * The exit status of `up`, as `start`'s: 0 when every daemon is up; a failure's own status (1, or
 * 124 for a readiness timeout); 124 for a daemon still starting when `--timeout` ended the wait;
 * the highest of them.
 */
export const upStatus = (
  rows: ReadonlyArray<UpDaemon>,
  settled: UpWait["settled"],
  timedOut: boolean,
): number =>
  rows.reduce((code, r) => {
    if (isUp(r.status)) return code
    const o = settled.get(r.id)?.outcome
    if (o?._tag === "StartFailed") return Math.max(code, o.cli_status)
    if (r.status === "not_ready" && timedOut) return Math.max(code, READY_TIMEOUT_STATUS)
    return Math.max(code, ExitCode.failure)
  }, 0)

const seconds = (ms: number | null) => (ms === null ? "-" : `${(ms / 1000).toFixed(1)}s`)

const statusText = (s: UpStatus) => {
  const word = s.replace("_", " ")
  return isUp(s) ? green(word) : s === "not_ready" ? yellow(word) : red(word)
}

/** The text of the summary: the table, then why each daemon that is not up is not, then the verdict. */
export const upSummaryText = (summary: UpSummary, width: number | undefined): ReadonlyArray<string> => {
  const header = ["DAEMON", "STATUS", "READY IN", "PORTS", "LAST LINE"]
  const body = summary.daemons.map((d) => [
    cyan(d.id),
    statusText(d.status),
    seconds(d.ready_ms),
    d.ports.length === 0 ? "-" : d.ports.join(","),
    d.output.at(-1) ?? "",
  ])
  const lines = [renderTable(header, body, width === undefined ? {} : { maxWidth: width })]
  const down = summary.daemons.filter((d) => !isUp(d.status))
  for (const d of down) {
    lines.push(`${red("✗")} ${cyan(d.id)} ${d.status.replace("_", " ")}: ${d.message ?? ""}`)
    if (d.output.length > 0) lines.push(dim("  last output:"), ...d.output.map((l) => `    ${l}`))
  }
  for (const d of summary.daemons)
    if (d.proxy_url !== undefined) lines.push(`  ${dim("↳")} ${cyan(d.id)} ${d.proxy_url}`)
  if (summary.stopped.length > 0) lines.push(stoppedLine(summary.stopped))
  const total = summary.daemons.length
  lines.push(
    summary.ok
      ? `${green("✓")} ${total === 1 ? "1 daemon is" : `all ${total} daemons are`} up after ${seconds(summary.elapsed_ms)}`
      : `${red("✗")} ${down.length} of ${total} daemon${total === 1 ? "" : "s"} not up${summary.timed_out ? ` (the wait timed out after ${seconds(summary.elapsed_ms)})` : ""}`,
  )
  return lines
}

const stoppedLine = (stopped: ReadonlyArray<StopResult>) => {
  const ran = stopped.filter((r) => r.was_running).map((r) => r.id)
  return dim(
    ran.length === 0
      ? "--exit-on-failure: nothing up started was left running"
      : `--exit-on-failure: stopped ${ran.join(", ")}`,
  )
}
