import { Duration } from "effect"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { posixQuote } from "../shell/quote.js"
import { exportedHealth } from "./health.js"
import { commandAndEnv, exportName, httpProbeTarget, renderPorts, type Warnings } from "./model.js"
import { effectiveRetry } from "./restart.js"

// The parts of a Nomad job (JSON job specification) made from one daemon: its raw_exec task, its
// group's restart policy, and the service that registers it with its checks. Durations are
// nanoseconds.

export const NS_PER_SECOND = 1_000_000_000
const MIB = 1024 * 1024

export type Obj = Record<string, unknown>

/** The daemon's task: `/bin/sh -c` in its directory, its environment, signal and memory. */
export const taskOf = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings, name: string): Obj => {
  const c = d.config
  const { run, env } = commandAndEnv(config, d, w)
  const task: Obj = {
    Name: name,
    Driver: "raw_exec",
    Config: { command: "/bin/sh", args: ["-c", `cd ${posixQuote(c.dir)} && ${run}`] },
    KillSignal: c.stop_signal.signal,
  }
  if (Object.keys(env).length > 0) task.Env = env
  if (c.memory_limit !== undefined)
    task.Resources = { MemoryMB: Math.max(1, Math.ceil(c.memory_limit / MIB)) }
  if (c.stop_signal.timeout !== undefined)
    task.KillTimeout = Math.round(Duration.toMillis(c.stop_signal.timeout) * 1_000_000)
  if (c.user !== undefined) task.User = c.user
  if (c.cpu_limit !== undefined)
    w.add(
      d.id.qualified,
      "cpu_limit",
      `(${c.cpu_limit}%) is not mapped: Nomad reserves CPU in MHz, not a share of a core`,
    )
  return task
}

export const restartPolicy = (d: ResolvedDaemon) => {
  const retry = effectiveRetry(d.config)
  return retry === true
    ? { Attempts: 3, Interval: 60 * NS_PER_SECOND, Delay: NS_PER_SECOND, Mode: "delay" }
    : {
        Attempts: retry === false ? 0 : retry,
        Interval: 24 * 3600 * NS_PER_SECOND,
        Delay: NS_PER_SECOND,
        Mode: "fail",
      }
}

/** The label of a reserved port in the group's network. */
export const portLabel = (port: number): string => `port${port}`

/** The readiness check as a Nomad check on a reserved port, when it has that form. */
const readinessCheck = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings): Obj | undefined => {
  const c = d.config
  const id = d.id.qualified
  const ports = c.port?.expect ?? []
  const onPort = (port: number, check: Obj): Obj | undefined => {
    if (ports.includes(port)) return { ...check, PortLabel: portLabel(port) }
    w.add(id, "readiness", `checks port ${port}, which is not in the daemon's \`port\`: left out`)
    return undefined
  }
  const timing = { Interval: NS_PER_SECOND, Timeout: NS_PER_SECOND }
  if (c.ready_http !== undefined) {
    const target = httpProbeTarget(renderPorts(config, d, "ready_http", c.ready_http.url, w))
    if (target === undefined) {
      w.add(id, "ready_http", "is not a URL: left out")
      return undefined
    }
    return onPort(target.port, {
      Name: "ready",
      Type: "http",
      Protocol: target.https ? "https" : "http",
      Path: target.path,
      ...timing,
    })
  }
  if (c.ready_port !== undefined) {
    const port = Number(renderPorts(config, d, "ready_port", String(c.ready_port.port), w))
    if (Number.isInteger(port)) return onPort(port, { Name: "ready", Type: "tcp", ...timing })
  }
  for (const key of ["ready_delay", "ready_output", "ready_cmd"] as const)
    if (c[key] !== undefined)
      w.add(id, key, "is not mapped: a Nomad check is an http or tcp check on a reserved port")
  return undefined
}

/** The health check as a Nomad check that restarts the task after `failures` failures. */
const healthCheck = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
  task: string,
): { readonly check: Obj; readonly consul: boolean } | undefined => {
  const h = exportedHealth(config, d, w)
  if (h === undefined) return undefined
  const id = d.id.qualified
  const timing = {
    Interval: h.intervalSeconds * NS_PER_SECOND,
    Timeout: h.timeoutSeconds * NS_PER_SECOND,
    CheckRestart: { Limit: h.failures, Grace: h.startPeriodSeconds * NS_PER_SECOND },
  }
  const t = h.target
  if (t._tag === "cmd") {
    w.add(id, "health.cmd", "is a script check: Nomad runs those only for services registered in Consul")
    return {
      check: {
        Name: "health",
        Type: "script",
        Command: "/bin/sh",
        Args: ["-c", t.run],
        TaskName: task,
        ...timing,
      },
      consul: true,
    }
  }
  if (!(d.config.port?.expect ?? []).includes(t.port)) {
    w.add(
      id,
      "health",
      `checks port ${t.port}, which is not in the daemon's \`port\`: left out (Nomad checks a reserved port)`,
    )
    return undefined
  }
  const check =
    t._tag === "http"
      ? {
          Name: "health",
          Type: "http",
          Protocol: t.https ? "https" : "http",
          Path: t.path,
        }
      : { Name: "health", Type: "tcp" }
  return { check: { ...check, PortLabel: portLabel(t.port), ...timing }, consul: false }
}

/**
 * The group's service: the daemon registered under its exported name (Nomad's own service
 * discovery, which dependents wait on), with its readiness and health checks. A script check
 * needs Consul: the service is then Consul's.
 */
export const serviceOf = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
  task: string,
): Obj | undefined => {
  const ports = d.config.port?.expect ?? []
  const ready = readinessCheck(config, d, w)
  const health = healthCheck(config, d, w, task)
  if (ports.length === 0 && health === undefined) return undefined
  const checks = [ready, health?.check].filter((c): c is Obj => c !== undefined)
  return {
    Name: exportName(d),
    Provider: health?.consul === true ? "consul" : "nomad",
    ...(ports.length > 0 ? { PortLabel: portLabel(ports[0]!) } : {}),
    ...(checks.length > 0 ? { Checks: checks } : {}),
  }
}
