import type { StatusType } from "../domain/DaemonStatus.js"
import type { Family, Sample } from "./text.js"

/** What the metrics say of one daemon, gathered by Metrics.ts. */
export interface DaemonFacts {
  /** The qualified ID, `proj/api`: the `daemon` label. */
  readonly id: string
  readonly status: StatusType
  /** Spawns after the first one this supervisor saw (retries, restarts, starts after a stop). */
  readonly restarts: number
  /** Retries used by the current run (its `retry_count`). */
  readonly retries: number
  readonly uptimeSeconds: number
  /** Of the process tree, while it runs; undefined when not running (no sample). */
  readonly cpuSeconds: number | undefined
  readonly memoryBytes: number | undefined
  /** Lines and raw bytes in the daemon's log since it was created or cleared; undefined without a log. */
  readonly logLines: number | undefined
  readonly logBytes: number | undefined
  /** How long its latest run took to pass its readiness check; undefined when not known. */
  readonly readySeconds: number | undefined
}

const family = (
  name: string,
  type: Family["type"],
  help: string,
  daemons: ReadonlyArray<DaemonFacts>,
  value: (d: DaemonFacts) => number | undefined,
): Family => ({
  name,
  type,
  help,
  samples: daemons.flatMap((d): Array<Sample> => {
    const v = value(d)
    return v === undefined ? [] : [{ labels: { daemon: d.id }, value: v }]
  }),
})

/**
 * The per-daemon metric families. Status is one sample per daemon, its status as a label with
 * the value 1 (a state set of every status would be 8 samples per daemon: 200 daemons' scrape
 * would be twice as long).
 */
export const daemonFamilies = (daemons: ReadonlyArray<DaemonFacts>): ReadonlyArray<Family> => [
  {
    name: "supervisor_daemon_status",
    type: "gauge",
    help: "The daemon's current status, as the status label; always 1",
    samples: daemons.map((d) => ({ labels: { daemon: d.id, status: d.status }, value: 1 })),
  },
  family(
    "supervisor_daemon_restarts_total",
    "counter",
    "Spawns of the daemon after its first one since the supervisor started (retries, restarts, starts after a stop)",
    daemons,
    (d) => d.restarts,
  ),
  family(
    "supervisor_daemon_retries",
    "gauge",
    "Retries used since the daemon's last start (its retry_count)",
    daemons,
    (d) => d.retries,
  ),
  family(
    "supervisor_daemon_uptime_seconds",
    "gauge",
    "Seconds since the daemon's current run started; 0 when it does not run",
    daemons,
    (d) => d.uptimeSeconds,
  ),
  family(
    "supervisor_daemon_cpu_seconds_total",
    "counter",
    "CPU time (user + system) used by the live processes of the daemon's process tree",
    daemons,
    (d) => d.cpuSeconds,
  ),
  family(
    "supervisor_daemon_resident_memory_bytes",
    "gauge",
    "Resident memory of the daemon's process tree",
    daemons,
    (d) => d.memoryBytes,
  ),
  family(
    "supervisor_daemon_log_lines_total",
    "counter",
    "Lines stored in the daemon's log since it was created or last cleared",
    daemons,
    (d) => d.logLines,
  ),
  family(
    "supervisor_daemon_log_bytes_total",
    "counter",
    "Bytes of output written to the daemon's log since it was created or last cleared",
    daemons,
    (d) => d.logBytes,
  ),
  family(
    "supervisor_daemon_ready_duration_seconds",
    "gauge",
    "How long the daemon's latest run took from spawn to passing its readiness check",
    daemons,
    (d) => d.readySeconds,
  ),
]
