import type { Duration } from "effect"
import { stringify } from "yaml"
import { awaitsExit, conditionOf } from "../domain/Dependency.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { posixQuote } from "../shell/quote.js"
import { type ExportedHealth, exportedHealth, type HealthTarget } from "./health.js"
import { addressedByOthers, loopbackBinds, portOwnersOf } from "./loopback.js"
import {
  commandAndEnv,
  daemonsOf,
  type ExportOptions,
  type ExportResult,
  envFilesOf,
  exportName,
  imageOf,
  renderPorts,
  Warnings,
  warnPlaceholderImage,
  warnUnmappable,
  wholeSeconds,
} from "./model.js"
import { replicasOf } from "./replicas.js"
import { effectiveRetry, warnRestartKeys } from "./restart.js"

// One compose file (the Compose Specification); readiness checks become healthchecks, so that
// `depends_on` can wait with `condition: service_healthy`.

/** Compose interpolates `$VAR` in every string: a literal `$` is written `$$`. */
const literal = (s: string): string => s.replace(/\$/g, "$$$$")

type Healthcheck = Record<string, unknown>

/** The shell test of a check: curl or wget for a URL, nc for a port, the command itself. */
const shellTest = (target: HealthTarget): string => {
  if (target._tag === "cmd") return target.run
  if (target._tag === "port") return `nc -z 127.0.0.1 ${target.port}`
  const quoted = posixQuote(target.href)
  return `curl -fsS -o /dev/null ${quoted} || wget -q -O /dev/null ${quoted}`
}

/** The healthcheck of a daemon's health check: its own timing; Compose marks it unhealthy. */
const livenessCheckOf = (d: ResolvedDaemon, h: ExportedHealth, w: Warnings): Healthcheck => {
  const id = d.id.qualified
  const c = d.config
  if (c.ready_output ?? c.ready_http ?? c.ready_port ?? c.ready_cmd)
    w.add(id, "ready_*", "is left out: a service has one healthcheck, and health is it")
  w.add(
    id,
    "health",
    "marks the container unhealthy; Compose itself does not restart it (an autoheal container or Swarm does)",
  )
  return {
    test: ["CMD-SHELL", literal(shellTest(h.target))],
    interval: `${h.intervalSeconds}s`,
    timeout: `${h.timeoutSeconds}s`,
    retries: h.failures,
    ...(h.startPeriodSeconds > 0 && { start_period: `${h.startPeriodSeconds}s` }),
  }
}

/**
 * The healthcheck of a daemon: its health check when it has one, else its readiness check when
 * that has a shell form.
 */
export const healthcheckOf = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): Healthcheck | undefined => {
  const c = d.config
  const id = d.id.qualified
  const health = exportedHealth(config, d, w)
  if (health !== undefined) return livenessCheckOf(d, health, w)
  const timeout = (t: { timeout?: Duration.Duration | undefined }) =>
    t.timeout === undefined ? {} : { start_period: `${wholeSeconds(t.timeout)}s` }
  const check = (command: string, extra: Healthcheck = {}): Healthcheck => ({
    test: ["CMD-SHELL", literal(command)],
    interval: "1s",
    retries: 3,
    ...extra,
  })
  if (c.ready_output !== undefined)
    w.add(id, "ready_output", "(an output line) has no healthcheck form: left out")
  if (c.ready_cmd !== undefined)
    return check(renderPorts(config, d, "ready_cmd", c.ready_cmd.run, w), timeout(c.ready_cmd))
  if (c.ready_http !== undefined) {
    const url = renderPorts(config, d, "ready_http", c.ready_http.url, w)
    if (c.ready_http.status.length > 0)
      w.add(id, "ready_http.status", "(more accepted codes) is not mapped: the healthcheck wants 2xx")
    const quoted = posixQuote(url)
    return check(`curl -fsS -o /dev/null ${quoted} || wget -q -O /dev/null ${quoted}`, timeout(c.ready_http))
  }
  if (c.ready_port !== undefined) {
    const port = renderPorts(config, d, "ready_port", String(c.ready_port.port), w)
    return check(`nc -z 127.0.0.1 ${port}`, timeout(c.ready_port))
  }
  if (c.ready_delay !== undefined && c.ready_delay > 0)
    return { test: ["CMD", "true"], interval: `${Math.max(1, Math.ceil(c.ready_delay))}s`, retries: 1 }
  return undefined
}

/** `supervisor export compose`: one `compose.yaml`. */
export const exportCompose = (config: ResolvedConfig, options: ExportOptions = {}): ExportResult => {
  const w = new Warnings()
  const daemons = daemonsOf(config, w)
  const services: Record<string, Record<string, unknown>> = {}
  const healthy = new Set<string>()
  const checks = new Map<string, Healthcheck>()
  for (const d of daemons) {
    const check = healthcheckOf(config, d, w)
    if (check !== undefined) {
      checks.set(d.id.qualified, check)
      healthy.add(d.id.qualified)
    }
  }
  warnPlaceholderImage(
    daemons,
    options,
    w,
    "compose",
    "with the daemon's directory mounted",
    "the daemons' programs (and curl or wget, or nc, for the healthchecks)",
  )
  const owners = portOwnersOf(daemons)
  for (const d of daemons) {
    const c = d.config
    const id = d.id.qualified
    warnUnmappable(d, w, "compose")
    warnRestartKeys(d, w, "compose", { dependents: true })
    // another daemon's port on the loopback (`localhost:{{ daemons.db.port }}`) is its service by
    // name on the compose network (`shop--db:5432`); its own ports stay as they are
    const address = addressedByOthers(owners, d, exportName)
    const rendered = commandAndEnv(config, d, w)
    const run = address(rendered.run)
    const env = Object.fromEntries(Object.entries(rendered.env).map(([k, v]) => [k, address(v)]))
    for (const [key, what] of loopbackBinds(run, env))
      w.add(
        id,
        key,
        `binds the loopback address (${what}): in a container it cannot be reached through the published ports or by the other services; bind 0.0.0.0 in the container`,
      )
    const service: Record<string, unknown> = {
      image: imageOf(d, options),
      working_dir: c.dir,
      volumes: [`${c.dir}:${c.dir}`],
      command: ["sh", "-c", literal(run)],
    }
    // compose reads env_file below environment, as the supervisor reads env files below env
    // (an optional file has only the long form of Compose 2.24, which the Compose Specification's
    // published schema does not take yet: left out, with a warning)
    const files = envFilesOf(c)
    const required = files.filter((f) => !f.optional).map((f) => f.path)
    if (required.length > 0) service.env_file = required
    for (const f of files.filter((f) => f.optional))
      w.add(
        id,
        `env_file (${f.path})`,
        "is optional: left out, as compose fails on a missing env_file; add it as { path: ..., required: false } for Compose 2.24 and later",
      )
    if (Object.keys(env).length > 0)
      service.environment = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, literal(v)]))
    // replicas publish a host port each, as the supervisor gives them: 3000-3002 -> 3000
    const n = replicasOf(d)
    if (c.port !== undefined)
      service.ports = c.port.expect.map((p) => (n > 1 ? `${p}-${p + n - 1}:${p}` : `${p}:${p}`))
    if (n > 1) service.deploy = { replicas: n }
    const dependsOn: Record<string, { condition: string; restart?: boolean }> = {}
    for (const dep of c.depends) {
      const target = config.daemons[dep]
      if (target === undefined) {
        w.add(id, "depends", `names ${dep}, which is not in the configuration: left out`)
        continue
      }
      const condition = conditionOf(c, dep)
      dependsOn[exportName(target)] = {
        condition: awaitsExit(condition)
          ? "service_completed_successfully"
          : condition === "started" || !healthy.has(dep)
            ? "service_started"
            : "service_healthy",
        // restart_dependents: compose restarts this service after it restarts the dependency
        ...(target.config.restart_dependents ? { restart: true } : {}),
      }
      if (condition === "ready" && !healthy.has(dep))
        w.add(
          id,
          `depends (${dep})`,
          "waits for readiness, but the dependency has no healthcheck: service_started",
        )
    }
    if (Object.keys(dependsOn).length > 0) service.depends_on = dependsOn
    const retry = effectiveRetry(c)
    service.restart =
      c.restart === "always"
        ? "always"
        : retry === true
          ? "on-failure"
          : retry === false || retry === 0
            ? "no"
            : `on-failure:${retry}`
    const check = checks.get(id)
    if (check !== undefined) service.healthcheck = check
    if (c.memory_limit !== undefined) service.mem_limit = c.memory_limit
    if (c.cpu_limit !== undefined) service.cpus = c.cpu_limit / 100
    if (c.stop_signal.signal !== "SIGTERM") service.stop_signal = c.stop_signal.signal
    if (c.stop_signal.timeout !== undefined)
      service.stop_grace_period = `${wholeSeconds(c.stop_signal.timeout)}s`
    if (c.user !== undefined) service.user = c.user
    if (c.cron !== undefined)
      w.add(id, "cron", `(${c.cron.schedule}) has no compose equivalent: the service runs once at up`)
    if (c.boot_start) w.add(id, "boot_start", "is left to the Docker daemon (restart policies)")
    services[exportName(d)] = service
  }
  const content = `# exported by supervisor from ${config.files.map((f) => f.path).join(", ") || "no file"}\n${stringify({ services }, { version: "1.1", lineWidth: 0 })}`
  return { files: [{ path: "compose.yaml", content }], warnings: w.list }
}
