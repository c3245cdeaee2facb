import { Duration } from "effect"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { posixQuote } from "../shell/quote.js"
import { toSevenFields } from "./cron.js"
import { exportedHealth } from "./health.js"
import {
  commandAndEnv,
  daemonsOf,
  type ExportFile,
  type ExportResult,
  exportName,
  Warnings,
  warnEnvFiles,
  warnUnmappable,
} from "./model.js"
import { replicasOf } from "./replicas.js"
import { effectiveRetry, warnRestartKeys } from "./restart.js"

// Nomad jobs in the JSON job specification (`nomad job run -json FILE`), one per daemon, each a
// task of the raw_exec driver; cron daemons are periodic batch jobs. Durations are nanoseconds.

const NS_PER_SECOND = 1_000_000_000
const MIB = 1024 * 1024

const restartPolicy = (retry: number | boolean) =>
  retry === true
    ? { Attempts: 3, Interval: 60 * NS_PER_SECOND, Delay: NS_PER_SECOND, Mode: "delay" }
    : {
        Attempts: retry === false ? 0 : retry,
        Interval: 24 * 3600 * NS_PER_SECOND,
        Delay: NS_PER_SECOND,
        Mode: "fail",
      }

/**
 * The group's service with its health check as a Nomad check, restarting the task after
 * `failures` failures (`check_restart`). http and tcp checks use Nomad's own service provider
 * and a reserved port; a cmd is a script check, which needs Consul.
 */
const serviceOf = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): Record<string, unknown> | undefined => {
  const h = exportedHealth(config, d, w)
  if (h === undefined) return undefined
  const id = d.id.qualified
  const name = exportName(d)
  const timing = {
    Interval: h.intervalSeconds * NS_PER_SECOND,
    Timeout: h.timeoutSeconds * NS_PER_SECOND,
    CheckRestart: { Limit: h.failures, Grace: h.startPeriodSeconds * NS_PER_SECOND },
  }
  const t = h.target
  if (t._tag === "cmd") {
    w.add(id, "health.cmd", "is a script check: Nomad runs those only for services registered in Consul")
    return {
      Name: name,
      Provider: "consul",
      Checks: [
        {
          Name: "health",
          Type: "script",
          Command: "/bin/sh",
          Args: ["-c", t.run],
          TaskName: name,
          ...timing,
        },
      ],
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
  const label = `port${t.port}`
  const check =
    t._tag === "http"
      ? {
          Name: "health",
          Type: "http",
          Protocol: t.url.protocol.slice(0, -1),
          Path: `${t.url.pathname}${t.url.search}`,
        }
      : { Name: "health", Type: "tcp" }
  return {
    Name: name,
    Provider: "nomad",
    PortLabel: label,
    Checks: [{ ...check, PortLabel: label, ...timing }],
  }
}

const job = (config: ResolvedConfig, d: ResolvedDaemon, w: Warnings): Record<string, unknown> => {
  const c = d.config
  const id = d.id.qualified
  const name = exportName(d)
  const { run, env } = commandAndEnv(config, d, w)
  const task: Record<string, unknown> = {
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
      id,
      "cpu_limit",
      `(${c.cpu_limit}%) is not mapped: Nomad reserves CPU in MHz, not a share of a core`,
    )
  for (const key of ["ready_delay", "ready_output", "ready_http", "ready_port", "ready_cmd"] as const)
    if (c[key] !== undefined)
      w.add(
        id,
        key,
        "is not mapped: Nomad's checks belong to a registered service, which a raw_exec job does not declare",
      )
  if (c.depends.length > 0)
    w.add(
      id,
      "depends",
      `(${c.depends.join(", ")}) has no Nomad equivalent between jobs: they start in any order`,
    )
  if (c.boot_start) w.add(id, "boot_start", "is left to Nomad: jobs run while the cluster does")
  const group: Record<string, unknown> = {
    Name: name,
    Count: replicasOf(d),
    RestartPolicy: restartPolicy(effectiveRetry(c)),
    Tasks: [task],
  }
  if (c.port !== undefined && replicasOf(d) > 1)
    w.add(
      id,
      "instances",
      `(${replicasOf(d)}) is Count ${replicasOf(d)}: with its reserved ports, each allocation needs a node of its own (use dynamic ports to run several on one node)`,
    )
  if (c.port !== undefined)
    group.Networks = [{ ReservedPorts: c.port.expect.map((p) => ({ Label: `port${p}`, Value: p })) }]
  const service = c.cron === undefined ? serviceOf(config, d, w) : undefined
  if (service !== undefined) group.Services = [service]
  else if (c.cron !== undefined && c.health !== undefined)
    w.add(id, "health", "is not mapped for a periodic batch job")
  const out: Record<string, unknown> = {
    ID: name,
    Name: name,
    Type: c.cron === undefined ? "service" : "batch",
    Datacenters: ["*"],
    Meta: { "supervisor.daemon": id, "supervisor.source": d.source },
    TaskGroups: [group],
  }
  if (c.cron !== undefined) {
    out.Periodic = {
      Enabled: true,
      SpecType: "cron",
      Spec: toSevenFields(c.cron.schedule),
      ProhibitOverlap: c.cron.retrigger !== "always",
    }
    if (c.cron.retrigger !== "finish" && c.cron.retrigger !== "always")
      w.add(id, "cron.retrigger", `(${c.cron.retrigger}) is mapped to ProhibitOverlap`)
    if (c.cron.immediate) w.add(id, "cron.immediate", "has no Nomad equivalent")
  }
  return { Job: out }
}

/** `supervisor export nomad`: one JSON job per daemon. */
export const exportNomad = (config: ResolvedConfig): ExportResult => {
  const w = new Warnings()
  const files: Array<ExportFile> = []
  for (const d of daemonsOf(config, w)) {
    warnUnmappable(d, w, "nomad")
    warnEnvFiles(d, w, "nomad")
    warnRestartKeys(d, w, "nomad")
    files.push({
      path: `${exportName(d)}.nomad.json`,
      content: `${JSON.stringify(job(config, d, w), null, 2)}\n`,
    })
  }
  return { files, warnings: w.list }
}
