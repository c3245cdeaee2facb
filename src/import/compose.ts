// A process-compose file's processes (already parsed from YAML) as supervisor daemons. Keys are
// process-compose's (f1bonacc1.github.io/process-compose); what has no equivalent is a warning.
import type { TomlValue } from "../config/edit/daemonToml.js"
import { Collector, envTable, type Imported, ImportFailed, isRecord } from "./model.js"

const MAPPED = new Set([
  "command",
  "working_dir",
  "environment",
  "depends_on",
  "readiness_probe",
  "liveness_probe",
  "ready_log_line",
  "availability",
  "shutdown",
  "is_tty",
])

/** process-compose's conditions and the supervisor's (`completed` needs exit 0 in both but one). */
const CONDITIONS: Readonly<Record<string, string>> = {
  process_started: "started",
  process_healthy: "ready",
  process_log_ready: "ready",
  process_completed_successfully: "completed",
  process_completed: "completed",
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A probe as a ready check: `exec` → ready_cmd, `http_get` → ready_http; its timing is a warning. */
const probe = (p: unknown, key: string, c: Collector): readonly [string, TomlValue] | undefined => {
  if (!isRecord(p)) {
    c.warn(key, "expected a table with exec or http_get: not imported")
    return undefined
  }
  const timing = Object.keys(p).filter((k) => k !== "exec" && k !== "http_get")
  if (timing.length > 0)
    c.warn(
      key,
      `${timing.join(", ")} not imported: ready checks are polled every settings.supervisor.ready_check_interval until they pass`,
    )
  if (isRecord(p.exec) && typeof p.exec.command === "string") {
    if (p.exec.working_dir !== undefined)
      c.warn(`${key}.exec.working_dir`, "not imported: ready_cmd runs in the daemon's dir")
    return ["ready_cmd", p.exec.command]
  }
  if (isRecord(p.http_get)) {
    const h = p.http_get
    const scheme = typeof h.scheme === "string" ? h.scheme.toLowerCase() : "http"
    const host = typeof h.host === "string" ? h.host : "127.0.0.1"
    const path = typeof h.path === "string" ? (h.path.startsWith("/") ? h.path : `/${h.path}`) : "/"
    if (typeof h.port !== "number" && typeof h.port !== "string") {
      c.warn(`${key}.http_get.port`, "missing: not imported")
      return undefined
    }
    return ["ready_http", `${scheme}://${host}:${h.port}${path}`]
  }
  c.warn(key, "neither exec.command nor http_get: not imported")
  return undefined
}

/**
 * `retry` and `restart` from availability.restart: `on_failure` is a retry count (max_restarts,
 * else no limit), `always` is restart = "always" (after exit 0 too, without a limit).
 */
const restartOf = (
  a: unknown,
  key: string,
  c: Collector,
): { readonly retry?: TomlValue | undefined; readonly restart?: TomlValue | undefined } => {
  const retry = retryOf(a, key, c)
  if (!isRecord(a) || a.restart !== "always") return { retry }
  if (typeof a.max_restarts === "number" && a.max_restarts > 0)
    c.warn(`${key}.max_restarts`, 'not imported: restart = "always" restarts without a limit')
  return { restart: "always" }
}

/** `retry` from availability.restart: the supervisor retries after a crash. */
const retryOf = (a: unknown, key: string, c: Collector): TomlValue | undefined => {
  if (a === undefined) return undefined
  if (!isRecord(a)) return void c.warn(key, "expected a table: not imported")
  for (const k of Object.keys(a))
    if (k !== "restart" && k !== "max_restarts")
      c.warn(`${key}.${k}`, "not imported: retries follow the supervisor's own back-off")
  const max =
    typeof a.max_restarts === "number" && Number.isInteger(a.max_restarts) && a.max_restarts > 0
      ? a.max_restarts
      : true
  switch (a.restart) {
    case undefined:
    case "no":
      return undefined
    case "on_failure":
      return max
    case "always":
      // restart = "always" (restartOf)
      return undefined
    case "exit_on_failure":
      c.warn(
        `${key}.restart`,
        '"exit_on_failure": the supervisor does not stop when a daemon fails; not imported',
      )
      return undefined
    default:
      c.warn(`${key}.restart`, `${JSON.stringify(a.restart)} is not a restart policy: not imported`)
      return undefined
  }
}

/** `depends` from depends_on: `{ other: { condition } }`. */
const dependsOf = (d: unknown, key: string, names: ReadonlyMap<string, string>, c: Collector) => {
  if (d === undefined) return undefined
  if (!isRecord(d)) return void c.warn(key, "expected a table of processes: not imported")
  const out: Array<TomlValue> = []
  for (const [other, spec] of Object.entries(d)) {
    const id = names.get(other)
    if (id === undefined) {
      c.warn(`${key}.${other}`, "no such process in this file: not imported")
      continue
    }
    const raw = isRecord(spec) && typeof spec.condition === "string" ? spec.condition : "process_started"
    const condition = CONDITIONS[raw]
    if (condition === undefined)
      c.warn(`${key}.${other}.condition`, `${JSON.stringify(raw)} is unknown: imported as "ready"`)
    if (raw === "process_completed")
      c.warn(
        `${key}.${other}.condition`,
        '"process_completed": imported as "completed", which needs exit status 0',
      )
    out.push(condition === "ready" || condition === undefined ? id : { id, condition })
  }
  return out.length > 0 ? out : undefined
}

/** The daemons of a parsed process-compose file; `file` names it. */
export const importCompose = (doc: unknown, file: string): Imported | ImportFailed => {
  const fix = "a process-compose file has processes: { name: { command: ... } }"
  if (!isRecord(doc) || !isRecord(doc.processes) || Object.keys(doc.processes).length === 0)
    return new ImportFailed({ file, key: "processes", problem: "no processes found", hint: fix })
  const c = new Collector()
  for (const k of Object.keys(doc))
    if (k !== "processes" && k !== "environment" && k !== "version")
      c.warn(k, "not imported: no equivalent in supervisor.toml")
  const processes = doc.processes
  const names = new Map<string, string>()
  for (const name of Object.keys(processes)) names.set(name, c.name(name, `processes.${name}`))
  const global = envTable(doc.environment, "environment", c)
  for (const [name, p] of Object.entries(processes)) {
    const key = `processes.${name}`
    if (!isRecord(p) || typeof p.command !== "string" || p.command.trim() === "")
      return new ImportFailed({
        file,
        key: `${key}.command`,
        problem: "missing: the command to run",
        hint: fix,
      })
    for (const k of Object.keys(p)) if (!MAPPED.has(k)) c.warn(`${key}.${k}`, "not imported: no equivalent")
    const own = envTable(p.environment, `${key}.environment`, c)
    const env = global === undefined && own === undefined ? undefined : { ...global, ...own }
    const ready =
      p.readiness_probe !== undefined
        ? probe(p.readiness_probe, `${key}.readiness_probe`, c)
        : typeof p.ready_log_line === "string"
          ? (["ready_output", escapeRegex(p.ready_log_line)] as const)
          : p.liveness_probe !== undefined
            ? probe(p.liveness_probe, `${key}.liveness_probe`, c)
            : undefined
    if (p.liveness_probe !== undefined)
      c.warn(
        `${key}.liveness_probe`,
        ready?.[0] !== undefined && p.readiness_probe === undefined && typeof p.ready_log_line !== "string"
          ? "imported as the ready check: it is checked until the daemon is ready, not afterwards"
          : "not imported: the supervisor checks readiness at start, not liveness afterwards",
      )
    if (p.readiness_probe !== undefined && typeof p.ready_log_line === "string")
      c.warn(`${key}.ready_log_line`, "not imported: readiness_probe is the ready check")
    const shutdown = isRecord(p.shutdown) ? p.shutdown : undefined
    if (shutdown !== undefined)
      for (const k of Object.keys(shutdown))
        if (k !== "signal" && k !== "timeout_seconds")
          c.warn(`${key}.shutdown.${k}`, "not imported: no equivalent")
    const signal =
      shutdown?.signal === undefined ? undefined : stopSignal(shutdown.signal, `${key}.shutdown.signal`, c)
    const timeout = typeof shutdown?.timeout_seconds === "number" ? `${shutdown.timeout_seconds}s` : undefined
    const policy = restartOf(p.availability, `${key}.availability`, c)
    c.add(names.get(name)!, [
      ["run", p.command],
      ["dir", typeof p.working_dir === "string" ? p.working_dir : undefined],
      ["env", env],
      ["retry", policy.retry],
      ["restart", policy.restart],
      ready ?? ["ready_cmd", undefined],
      ["depends", dependsOf(p.depends_on, `${key}.depends_on`, names, c)],
      ["stop_signal", timeout === undefined ? signal : { signal: signal ?? "SIGTERM", timeout }],
      ["pty", p.is_tty === true ? true : undefined],
    ])
  }
  return c.result()
}

/** process-compose gives signals as numbers (15) or names; the supervisor takes these names. */
const SIGNALS: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  10: "SIGUSR1",
  12: "SIGUSR2",
  15: "SIGTERM",
}

const stopSignal = (v: unknown, key: string, c: Collector): string | undefined => {
  const name =
    typeof v === "number"
      ? SIGNALS[v]
      : typeof v === "string"
        ? `SIG${v.toUpperCase().replace(/^SIG/, "")}`
        : undefined
  if (name !== undefined && Object.values(SIGNALS).includes(name)) return name
  c.warn(
    key,
    `${JSON.stringify(v)}: not a stop signal the supervisor sends (${Object.values(SIGNALS).join(", ")}); not imported`,
  )
  return undefined
}
