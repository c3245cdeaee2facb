// A process-compose file's processes (already parsed from YAML) as supervisor daemons. Keys are
// process-compose's (f1bonacc1.github.io/process-compose); what has no equivalent is a warning.
import type { TomlValue } from "../config/edit/daemonToml.js"
import { composeReplicas } from "./instances.js"
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
  "env_file",
  "replicas",
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

/** What a probe checks: `exec` → a command, `http_get` → a URL (its timing is the caller's). */
const probeCheck = (
  p: Record<string, unknown>,
  key: string,
  c: Collector,
): readonly ["cmd" | "http", string] | undefined => {
  if (isRecord(p.exec) && typeof p.exec.command === "string") {
    if (p.exec.working_dir !== undefined)
      c.warn(`${key}.exec.working_dir`, "not imported: the check runs in the daemon's dir")
    return ["cmd", p.exec.command]
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
    return ["http", `${scheme}://${host}:${h.port}${path}`]
  }
  c.warn(key, "neither exec.command nor http_get: not imported")
  return undefined
}

/** A readiness probe as a ready check: `exec` → ready_cmd, `http_get` → ready_http; its timing is a warning. */
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
  const check = probeCheck(p, key, c)
  return check === undefined ? undefined : [`ready_${check[0]}`, check[1]]
}

const seconds = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined

/**
 * A liveness probe as the health check, with its timing: period_seconds → interval,
 * timeout_seconds → timeout, failure_threshold → failures, initial_delay_seconds → start_period.
 */
const healthOf = (p: unknown, key: string, c: Collector): TomlValue | undefined => {
  if (p === undefined) return undefined
  if (!isRecord(p)) return void c.warn(key, "expected a table with exec or http_get: not imported")
  const check = probeCheck(p, key, c)
  if (check === undefined) return undefined
  for (const k of Object.keys(p))
    if (
      ![
        "exec",
        "http_get",
        "period_seconds",
        "timeout_seconds",
        "failure_threshold",
        "initial_delay_seconds",
      ].includes(k)
    )
      c.warn(`${key}.${k}`, "not imported: one passing check makes the daemon healthy again")
  const period = seconds(p.period_seconds)
  let timeout = seconds(p.timeout_seconds)
  // process-compose's defaults: every 10 s, 1 s per check
  if (timeout !== undefined && timeout > (period ?? 10)) {
    c.warn(`${key}.timeout_seconds`, `(${timeout}) is longer than the period: imported as the interval`)
    timeout = period ?? 10
  }
  const failures = p.failure_threshold
  const delay = seconds(p.initial_delay_seconds)
  return {
    [check[0]]: check[1],
    ...(period !== undefined && period > 0 && { interval: `${period}s` }),
    ...(timeout !== undefined && timeout > 0 && { timeout: `${timeout}s` }),
    ...(typeof failures === "number" && Number.isInteger(failures) && failures >= 1 && { failures }),
    ...(delay !== undefined && delay > 0 && { start_period: `${delay}s` }),
  }
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

/**
 * `env_file`: a path or a list of paths and `{ path, required }` tables (compose's long form), as
 * the supervisor's entries; `rebase` makes a path relative to the output file.
 */
const envFilesOf = (
  v: unknown,
  key: string,
  rebase: (path: string) => string,
  c: Collector,
): Array<TomlValue> => {
  if (v === undefined) return []
  const out: Array<TomlValue> = []
  ;(Array.isArray(v) ? v : [v]).forEach((entry, i) => {
    const at = Array.isArray(v) ? `${key}[${i}]` : key
    if (typeof entry === "string" && entry.trim() !== "") out.push(rebase(entry))
    else if (isRecord(entry) && typeof entry.path === "string")
      out.push(entry.required === false ? { path: rebase(entry.path), optional: true } : rebase(entry.path))
    else c.warn(at, "expected a path or { path, required }: not imported")
  })
  return out
}

/** The daemons of a parsed process-compose file; `file` names it. */
export const importCompose = (
  doc: unknown,
  file: string,
  rebase: (path: string) => string = (p) => p,
): Imported | ImportFailed => {
  const fix = "a process-compose file has processes: { name: { command: ... } }"
  if (!isRecord(doc) || !isRecord(doc.processes) || Object.keys(doc.processes).length === 0)
    return new ImportFailed({ file, key: "processes", problem: "no processes found", hint: fix })
  const c = new Collector()
  for (const k of Object.keys(doc))
    if (k !== "processes" && k !== "environment" && k !== "version" && k !== "env_file")
      c.warn(k, "not imported: no equivalent in supervisor.toml")
  const processes = doc.processes
  const names = new Map<string, string>()
  for (const name of Object.keys(processes)) names.set(name, c.name(name, `processes.${name}`))
  const global = envTable(doc.environment, "environment", c)
  const globalFiles = envFilesOf(doc.env_file, "env_file", rebase, c)
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
          : undefined
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
      ["env_file", orNone([...globalFiles, ...envFilesOf(p.env_file, `${key}.env_file`, rebase, c)])],
      ["instances", composeReplicas(p.replicas, p.command, `${key}.replicas`, c)],
      ["retry", policy.retry],
      ["restart", policy.restart],
      ready ?? ["ready_cmd", undefined],
      ["health", healthOf(p.liveness_probe, `${key}.liveness_probe`, c)],
      ["depends", dependsOf(p.depends_on, `${key}.depends_on`, names, c)],
      ["stop_signal", timeout === undefined ? signal : { signal: signal ?? "SIGTERM", timeout }],
      ["pty", p.is_tty === true ? true : undefined],
    ])
  }
  return c.result()
}

/** A list, or nothing when it is empty; one plain path as itself (`env_file = ".env"`). */
const orNone = (list: ReadonlyArray<TomlValue>): TomlValue | undefined =>
  list.length === 0 ? undefined : list.length === 1 && typeof list[0] === "string" ? list[0] : list

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
