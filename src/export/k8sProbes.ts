// A daemon's checks as container probes: its readiness check is the readinessProbe (and, when the
// check has a `timeout`, a startupProbe that restarts the container not ready in time), its health
// check the livenessProbe.
import type { IProbe } from "kubernetes-models/v1/Probe"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { exportedHealth } from "./health.js"
import { httpProbeTarget, renderPorts, type Warnings, wholeSeconds } from "./model.js"

type Probe = IProbe

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"])

export interface ContainerProbes {
  readonly readinessProbe?: Probe
  readonly startupProbe?: Probe
  readonly livenessProbe?: Probe
}

/** The readiness check as a probe action, with its `timeout` in seconds when set. */
const readinessAction = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): { readonly action: Probe; readonly timeout?: number } | undefined => {
  const c = d.config
  const id = d.id.qualified
  const seconds = (t: Parameters<typeof wholeSeconds>[0] | undefined) =>
    t === undefined ? {} : { timeout: wholeSeconds(t) }
  if (c.ready_output !== undefined) w.add(id, "ready_output", "(an output line) has no probe form: left out")
  if (c.ready_http !== undefined) {
    const text = renderPorts(config, d, "ready_http", c.ready_http.url, w)
    const target = httpProbeTarget(text)
    if (target === undefined) w.add(id, "ready_http", `(${text}) is not a URL once rendered: left out`)
    else {
      if (!LOOPBACK.has(target.hostname))
        w.add(id, "ready_http", `polls ${target.hostname}: the probe asks the pod itself`)
      if (c.ready_http.status.length > 0)
        w.add(id, "ready_http.status", "(more accepted codes) is not mapped: the probe wants 2xx or 3xx")
      const scheme = target.https ? ("HTTPS" as const) : ("HTTP" as const)
      return {
        action: { httpGet: { path: target.path, port: target.port, scheme } },
        ...seconds(c.ready_http.timeout),
      }
    }
  }
  if (c.ready_port !== undefined) {
    const port = Number(renderPorts(config, d, "ready_port", String(c.ready_port.port), w))
    if (Number.isInteger(port)) return { action: { tcpSocket: { port } }, ...seconds(c.ready_port.timeout) }
    w.add(id, "ready_port", "names a daemon without a port: left out")
  }
  if (c.ready_cmd !== undefined)
    return {
      action: { exec: { command: ["sh", "-c", renderPorts(config, d, "ready_cmd", c.ready_cmd.run, w)] } },
      ...seconds(c.ready_cmd.timeout),
    }
  return undefined
}

/** The readinessProbe and startupProbe of a daemon's readiness check, when it has one. */
export const readinessProbes = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): Pick<ContainerProbes, "readinessProbe" | "startupProbe"> => {
  const delay = d.config.ready_delay
  const check = readinessAction(config, d, w)
  if (check === undefined)
    return delay !== undefined && delay > 0
      ? {
          readinessProbe: {
            exec: { command: ["true"] },
            initialDelaySeconds: Math.ceil(delay),
            periodSeconds: 1,
          },
        }
      : {}
  return {
    readinessProbe: { ...check.action, periodSeconds: 1 },
    // checked each second, `timeout` times at most: a container not ready by then is restarted
    ...(check.timeout === undefined
      ? {}
      : { startupProbe: { ...check.action, periodSeconds: 1, failureThreshold: check.timeout } }),
  }
}

/** The livenessProbe of a daemon's health check, when it has one. */
export const livenessProbeOf = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): Probe | undefined => {
  const h = exportedHealth(config, d, w)
  if (h === undefined) return undefined
  const t = h.target
  const action =
    t._tag === "http"
      ? {
          httpGet: {
            path: t.path,
            port: t.port,
            scheme: t.https ? ("HTTPS" as const) : ("HTTP" as const),
          },
        }
      : t._tag === "port"
        ? { tcpSocket: { port: t.port } }
        : { exec: { command: ["sh", "-c", t.run] } }
  return {
    ...action,
    periodSeconds: h.intervalSeconds,
    timeoutSeconds: h.timeoutSeconds,
    failureThreshold: h.failures,
    ...(h.startPeriodSeconds > 0 && { initialDelaySeconds: h.startPeriodSeconds }),
  }
}

/** Every probe of a long-running daemon's container. */
export const containerProbes = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings): ContainerProbes => {
  const liveness = livenessProbeOf(config, d, w)
  return { ...readinessProbes(config, d, w), ...(liveness === undefined ? {} : { livenessProbe: liveness }) }
}
