import type { Duration } from "effect"
import { stringify } from "yaml"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { toFiveFields } from "./cron.js"
import { exportedHealth } from "./health.js"
import {
  commandAndEnv,
  DEFAULT_IMAGE,
  daemonsOf,
  type ExportFile,
  type ExportResult,
  exportName,
  renderPorts,
  Warnings,
  warnEnvFiles,
  warnUnmappable,
  wholeSeconds,
} from "./model.js"
import { replicasOf } from "./replicas.js"
import { effectiveRetry, warnRestartKeys } from "./restart.js"

// Kubernetes manifests: an apps/v1 Deployment per daemon, a batch/v1 CronJob per cron daemon,
// one file each; readiness checks become readiness probes.

type Probe = Record<string, unknown>

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"])

/** The readinessProbe of a daemon's readiness check, when it has one. */
export const probeOf = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings): Probe | undefined => {
  const c = d.config
  const id = d.id.qualified
  const every = (timeout: Duration.Duration | undefined): Probe => ({
    periodSeconds: 1,
    ...(timeout === undefined ? {} : { failureThreshold: wholeSeconds(timeout) }),
  })
  if (c.ready_output !== undefined) w.add(id, "ready_output", "(an output line) has no probe form: left out")
  if (c.ready_http !== undefined) {
    const text = renderPorts(config, d, "ready_http", c.ready_http.url, w)
    try {
      const url = new URL(text.trim())
      if (!LOOPBACK.has(url.hostname))
        w.add(id, "ready_http", `polls ${url.hostname}: the probe asks the pod itself`)
      if (c.ready_http.status.length > 0)
        w.add(id, "ready_http.status", "(more accepted codes) is not mapped: the probe wants 2xx or 3xx")
      const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
      return {
        httpGet: {
          path: `${url.pathname}${url.search}`,
          port,
          scheme: url.protocol === "https:" ? "HTTPS" : "HTTP",
        },
        ...every(c.ready_http.timeout),
      }
    } catch {
      w.add(id, "ready_http", `(${text}) is not a URL once rendered: left out`)
    }
  }
  if (c.ready_port !== undefined) {
    const port = Number(renderPorts(config, d, "ready_port", String(c.ready_port.port), w))
    if (Number.isInteger(port)) return { tcpSocket: { port }, ...every(c.ready_port.timeout) }
    w.add(id, "ready_port", "names a daemon without a port: left out")
  }
  if (c.ready_cmd !== undefined)
    return {
      exec: { command: ["sh", "-c", renderPorts(config, d, "ready_cmd", c.ready_cmd.run, w)] },
      ...every(c.ready_cmd.timeout),
    }
  if (c.ready_delay !== undefined && c.ready_delay > 0)
    return { exec: { command: ["true"] }, initialDelaySeconds: Math.ceil(c.ready_delay), periodSeconds: 1 }
  return undefined
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
            path: `${t.url.pathname}${t.url.search}`,
            port: t.port,
            scheme: t.url.protocol === "https:" ? "HTTPS" : "HTTP",
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

/** Kubernetes expands `$(VAR)` in a container's command and env: `$$(` keeps it literal. */
const literal = (s: string): string => s.replace(/\$\(/g, "$$$$(")

const container = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings): Record<string, unknown> => {
  const c = d.config
  const { run, env } = commandAndEnv(config, d, w)
  const out: Record<string, unknown> = {
    name: exportName(d),
    image: DEFAULT_IMAGE,
    command: ["sh", "-c", literal(run)],
    workingDir: c.dir,
  }
  if (Object.keys(env).length > 0)
    out.env = Object.entries(env).map(([name, value]) => ({ name, value: literal(value) }))
  if (c.port !== undefined) out.ports = c.port.expect.map((containerPort) => ({ containerPort }))
  const limits: Record<string, string> = {}
  if (c.memory_limit !== undefined) limits.memory = String(c.memory_limit)
  if (c.cpu_limit !== undefined) limits.cpu = `${Math.max(1, Math.round(c.cpu_limit * 10))}m`
  if (Object.keys(limits).length > 0) out.resources = { limits }
  return out
}

const labels = (d: ResolvedDaemon) => ({
  "app.kubernetes.io/name": exportName(d),
  "app.kubernetes.io/managed-by": "supervisor-export",
})

const podSpec = (d: ResolvedDaemon, main: Record<string, unknown>, restartPolicy: string) => ({
  restartPolicy,
  ...(d.config.stop_signal.timeout === undefined
    ? {}
    : { terminationGracePeriodSeconds: wholeSeconds(d.config.stop_signal.timeout) }),
  containers: [main],
})

const deployment = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings) => {
  const main = container(config, d, w)
  const probe = probeOf(config, d, w)
  if (probe !== undefined) main.readinessProbe = probe
  const liveness = livenessProbeOf(config, d, w)
  if (liveness !== undefined) main.livenessProbe = liveness
  if (d.config.restart === "never")
    w.add(d.id.qualified, "restart", '("never") is not mapped: a Deployment always restarts its pod')
  else if (d.config.restart !== "always" && d.config.retry !== true)
    w.add(d.id.qualified, "retry", `(${d.config.retry}) is not mapped: a Deployment always restarts its pod`)
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: exportName(d), labels: labels(d) },
    spec: {
      replicas: replicasOf(d),
      selector: { matchLabels: { "app.kubernetes.io/name": exportName(d) } },
      template: { metadata: { labels: labels(d) }, spec: podSpec(d, main, "Always") },
    },
  }
}

const cronJob = (config: ResolvedConfig, d: ResolvedDaemon, schedule: string, w: Warnings) => {
  const c = d.config
  const retry = effectiveRetry(c)
  const retries = retry === true ? 6 : retry === false ? 0 : retry
  if (retry === true) w.add(d.id.qualified, "retry", "(true: forever) is mapped to backoffLimit 6")
  const retrigger = c.cron?.retrigger ?? "finish"
  if (retrigger !== "finish" && retrigger !== "always")
    w.add(d.id.qualified, "cron.retrigger", `(${retrigger}) is mapped to concurrencyPolicy Forbid`)
  if (c.cron?.immediate === true)
    w.add(d.id.qualified, "cron.immediate", "is not mapped (startingDeadlineSeconds is the closest)")
  const main = container(config, d, w)
  if (probeOf(config, d, new Warnings()) !== undefined)
    w.add(d.id.qualified, "ready_*", "is not mapped for a CronJob: its pods run to completion")
  if (d.config.health !== undefined)
    w.add(d.id.qualified, "health", "is not mapped for a CronJob: its pods run to completion")
  if (replicasOf(d) > 1)
    w.add(
      d.id.qualified,
      "instances",
      `(${replicasOf(d)}) is not mapped for a CronJob: each firing runs one pod`,
    )
  // a CronJob's name is at most 52 characters: its Jobs add a suffix to it
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: exportName(d).slice(0, 52).replace(/-+$/, ""), labels: labels(d) },
    spec: {
      schedule,
      concurrencyPolicy: retrigger === "always" ? "Allow" : "Forbid",
      jobTemplate: {
        spec: {
          backoffLimit: retries,
          template: { metadata: { labels: labels(d) }, spec: podSpec(d, main, "Never") },
        },
      },
    },
  }
}

/** `supervisor export kubernetes`: one manifest per daemon. */
export const exportKubernetes = (config: ResolvedConfig): ExportResult => {
  const w = new Warnings()
  const files: Array<ExportFile> = []
  const daemons = daemonsOf(config, w)
  if (daemons.length > 0)
    w.general(
      `kubernetes: every container runs image ${DEFAULT_IMAGE} in its daemon's directory; set the image that holds the daemons' programs and files`,
    )
  for (const d of daemons) {
    const c = d.config
    const id = d.id.qualified
    warnUnmappable(d, w, "kubernetes")
    warnEnvFiles(d, w, "kubernetes")
    warnRestartKeys(d, w, "kubernetes")
    if (c.depends.length > 0)
      w.add(id, "depends", `(${c.depends.join(", ")}) has no Kubernetes equivalent: pods start in any order`)
    if (c.stop_signal.signal !== "SIGTERM")
      w.add(id, "stop_signal", `(${c.stop_signal.signal}) is not mapped: Kubernetes sends SIGTERM`)
    if (c.user !== undefined) w.add(id, "user", `(${c.user}) is not mapped: set securityContext.runAsUser`)
    if (c.boot_start) w.add(id, "boot_start", "is left to the cluster: workloads are always started")
    const five = c.cron === undefined ? undefined : toFiveFields(c.cron.schedule)
    if (five !== undefined && "problem" in five)
      w.add(id, "cron", `(${c.cron?.schedule}) ${five.problem}: exported as a Deployment`)
    const manifest =
      five !== undefined && "value" in five ? cronJob(config, d, five.value, w) : deployment(config, d, w)
    files.push({
      path: `${exportName(d)}.yaml`,
      content: `# ${id}, exported by supervisor from ${d.source}\n${stringify(manifest, { version: "1.1", lineWidth: 0 })}`,
    })
  }
  return { files, warnings: w.list }
}
