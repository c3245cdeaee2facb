import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { isActive, type Runtime } from "./Runtime.js"

/** A daemon as the API lists it. */
export const apiEntry = (r: Runtime, disabled: boolean): ApiDaemonEntry => {
  const uptime = r.startedAt && isActive(r) ? Math.max(0, Math.floor((Date.now() - r.startedAt) / 1000)) : 0
  const status = disabled && !isActive(r) ? { ...r.status, type: "disabled" as const } : r.status
  return {
    id: r.def.id,
    title: r.def.id.name,
    pid: isActive(r) ? r.pid : null,
    status,
    dir: r.def.config.dir,
    cpu_percent: 0,
    memory_bytes: 0,
    uptime_secs: uptime,
    proxy_url: null,
    slug: null,
    active_port: null,
    resolved_port: r.def.config.port?.expect ?? [],
    enabled: !disabled,
    adhoc: r.def.adhoc,
    run: r.def.config.run,
    retry_count: r.retryCount,
    source: r.def.source,
  }
}
