import type { ApiDaemonEntry, NextRetry } from "../domain/ApiDaemonEntry.js"
import { nextRunOf } from "../domain/cronSchedule.js"
import { worktreeEntryOf } from "../domain/Worktree.js"
import type { StorageProblem } from "../state/StorageHealth.js"
import { type DaemonState, isActive } from "./DaemonState.js"
import type { DaemonUsage } from "./resourceUsage.js"

/** The retry the daemon waits for, as the API says it; null when none is pending. */
const nextRetryOf = (r: DaemonState, now: number): NextRetry | null =>
  r.retryPending && r.nextRetry !== null
    ? {
        retry: r.nextRetry.retry,
        of: Number.isFinite(r.nextRetry.limit) ? r.nextRetry.limit : null,
        due_in_ms: Math.max(0, Math.round(r.nextRetry.dueAt - now)),
      }
    : null

/**
 * A daemon as the API lists it; `usage` comes from `daemonUsage` (it reads /proc), `watchProblem`
 * from the watch service (why its files cannot be watched), `logProblem` from StorageHealth (a
 * failing write of its log files).
 */
export const apiEntry = (
  r: DaemonState,
  disabled: boolean,
  usage?: DaemonUsage,
  watchProblem?: string,
  logProblem?: StorageProblem,
): ApiDaemonEntry => {
  const live = isActive(r) ? usage : undefined
  const now = Date.now()
  const uptime = r.startedAt && isActive(r) ? Math.max(0, Math.floor((now - r.startedAt) / 1000)) : 0
  const status = disabled && !isActive(r) ? { ...r.status, type: "disabled" as const } : r.status
  return {
    id: r.def.id,
    title: r.def.id.name,
    pid: isActive(r) ? r.pid : null,
    status,
    dir: r.def.config.dir,
    cpu_percent: live?.cpuPercent ?? 0,
    memory_bytes: live?.memoryBytes ?? 0,
    uptime_secs: uptime,
    proxy_url: null,
    slug: null,
    active_port: live?.activePort ?? null,
    // The ports of the latest run; before any run, the configured ones.
    resolved_port: r.ports.length > 0 ? r.ports : (r.def.config.port?.expect ?? []),
    enabled: !disabled,
    adhoc: r.def.adhoc,
    run: r.def.config.run,
    retry_count: r.retryCount,
    next_retry: nextRetryOf(r, now),
    source: r.def.source,
    next_run: nextRunOf(r.def, now),
    watch_problem: watchProblem ?? null,
    pty: r.def.config.pty,
    stdin: r.def.config.stdin,
    ...(r.def.instance === undefined ? {} : { instance: r.def.instance }),
    ...(r.def.worktree === undefined ? {} : { worktree: worktreeEntryOf(r.def.worktree) }),
    ...(logProblem === undefined
      ? {}
      : { log_problem: `${logProblem.message} (${logProblem.failed_writes} failed write(s))` }),
  }
}
