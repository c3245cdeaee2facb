// What `supervisor start` prints about its outcomes, without Effect: the CLI (startReport.ts)
// and the quick client (src/quick/start.ts) print the same lines with the same exit status.
import { succeeded } from "../domain/outcomeKind.js"
import type { Waiting } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { cyan, dim, ExitCode, green, red, yellow } from "./style.js"

const plural = (ports: ReadonlyArray<number>) => `port${ports.length === 1 ? "" : "s"} ${ports.join(", ")}`

/** `, port 3001; 3000 was in use`: the ports a daemon got, and the configured ones when shifted. */
const portsNote = (ports?: ReadonlyArray<number>, expected?: ReadonlyArray<number>) => {
  if (ports === undefined || ports.length === 0) return ""
  // the outcome says which ports were expected, not which of them were taken
  const shifted =
    expected === undefined || expected.length === 0
      ? ""
      : expected.length === 1
        ? `; ${plural(expected)} was in use`
        : `; shifted from ${expected.join(", ")}, not all free`
  return `, ${plural(ports)}${shifted}`
}

export const outcomeLine = (o: StartOutcome): string => {
  switch (o._tag) {
    case "Ready":
      return `${green("✓")} ${cyan(o.id)} is running ${dim(`(pid ${o.pid}${portsNote(o.ports, o.expected_ports)})`)}`
    case "AlreadyRunning":
      return `${green("•")} ${cyan(o.id)} is already running${o.pid ? dim(` (pid ${o.pid})`) : ""}`
    case "Completed":
      return `${green("✓")} ${cyan(o.id)} ran to completion (exit 0)`
    case "Disabled":
      return `${red("✗")} ${cyan(o.id)} is disabled; run \`supervisor enable ${o.id}\` first`
    case "Interrupted":
      return `${yellow("•")} ${cyan(o.id)} was stopped while starting`
    case "StartFailed":
      return [
        `${red("✗")} ${cyan(o.id)} failed to start: ${o.message}`,
        ...(o.output.length ? [dim("  last output:"), ...o.output.map((l) => `    ${l}`)] : []),
      ].join("\n")
  }
}

export const outcomeStatus = (outcomes: ReadonlyArray<StartOutcome>): number =>
  outcomes.reduce((code, o) => {
    if (o._tag === "StartFailed") return Math.max(code, o.cli_status)
    if (o._tag === "Disabled" || o._tag === "Interrupted") return Math.max(code, ExitCode.failure)
    return code
  }, 0)

/** The line printed (when stderr is not a terminal) for a daemon a start waits for. */
export const waitingLine = (w: Waiting) => `${w.id} waiting for ${w.what}`

/** One line of the report and the stream it goes to. */
export interface ReportLine {
  readonly stream: "stdout" | "stderr"
  readonly text: string
}

/** How many started daemons the closing hint names; with more it names none. */
const HINT_IDS = 3

/** The closing hint: how to see the logs, the status, and how to stop what was started. */
const hintLine = (started: ReadonlyArray<string>) => {
  if (started.length > HINT_IDS)
    return "logs: supervisor logs -f    status: supervisor list    stop all: supervisor stop --all"
  const ids = started.join(" ")
  return `logs: supervisor logs ${ids} -f    status: supervisor list    stop: supervisor stop ${ids}`
}

/**
 * The report of a start: its lines in order (failures on stderr) and the exit status. With
 * `printed`, the outcome lines were printed as they came (a transcript): only what follows them.
 * `--json` prints the outcomes instead (startReport.ts; the quick client prints them as the
 * supervisor encoded them).
 */
export const startReportLines = (
  outcomes: ReadonlyArray<StartOutcome>,
  options: {
    readonly quiet: boolean
    readonly printed?: boolean
    /** Applied to each outcome line (`settings.general.startup_log_timestamps`). */
    readonly stamp?: (text: string) => string
  },
): { readonly lines: ReadonlyArray<ReportLine>; readonly code: number } => {
  const code = outcomeStatus(outcomes)
  const lines: Array<ReportLine> = []
  if (outcomes.length === 0 && !options.quiet)
    lines.push({
      stream: "stdout",
      text: dim("no daemons to start: none is configured here (see supervisor.toml)"),
    })
  const stamp = options.stamp ?? ((text: string) => text)
  if (!options.printed && !(options.quiet && code === 0))
    for (const o of outcomes) {
      const line = outcomeReportLine(o)
      lines.push({ ...line, text: stamp(line.text) })
    }
  // pitchfork's `↳ ID URL`: where each started daemon with a slug answers through the proxy
  if (!options.quiet)
    for (const o of outcomes)
      if (o._tag === "Ready" && o.proxy_url !== undefined)
        lines.push({ stream: "stdout", text: `  ${dim("↳")} ${cyan(o.id)} ${o.proxy_url}` })
  const started = outcomes.filter((o) => o._tag === "Ready").map((o) => o.id)
  if (!options.quiet && code === 0 && started.length > 0)
    lines.push({ stream: "stdout", text: dim(hintLine(started)) })
  return { lines, code }
}

/** The line of one outcome: failures go to stderr. */
export const outcomeReportLine = (o: StartOutcome): ReportLine => ({
  stream: succeeded(o) ? "stdout" : "stderr",
  text: outcomeLine(o),
})
