import type { IDeployment } from "kubernetes-models/apps/v1/Deployment"
import type { ICronJob } from "kubernetes-models/batch/v1/CronJob"
import type { IJob } from "kubernetes-models/batch/v1/Job"
import type { IContainer } from "kubernetes-models/v1/Container"
import type { IPodSpec } from "kubernetes-models/v1/PodSpec"
import type { IService } from "kubernetes-models/v1/Service"
import { stringify } from "yaml"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { toFiveFields } from "./cron.js"
import { awaitedToComplete, dependencyWaits, serviceName, WAIT_ACCOUNT, waitAccount } from "./k8sDepends.js"
import { envObjects, podEnv } from "./k8sEnv.js"
import { containerProbes, readinessProbes } from "./k8sProbes.js"
import { addressedByOthers, loopbackBinds, portOwnersOf } from "./loopback.js"
import {
  commandAndEnv,
  daemonsOf,
  type ExportFile,
  type ExportOptions,
  type ExportResult,
  exportName,
  imageOf,
  Warnings,
  warnPlaceholderImage,
  warnUnmappable,
  wholeSeconds,
} from "./model.js"
import { replicasOf } from "./replicas.js"
import { effectiveRetry, warnRestartKeys } from "./restart.js"

// Kubernetes manifests, one file per daemon: its workload (a Deployment, a Job when a dependent
// waits for it to complete, a CronJob for a schedule), the Service of its ports, the ConfigMap and
// Secret of its environment. Daemons reach each other's ports through the Services' names.
// The objects are typed by the kubernetes-models package (types only, generated from Kubernetes'
// OpenAPI specification): a misspelt or misplaced field does not compile.

/** Kubernetes expands `$(VAR)` in a container's command: `$$(` keeps it literal. */
const literal = (s: string): string => s.replace(/\$\(/g, "$$$$(")

const labels = (d: ResolvedDaemon): Record<string, string> => ({
  "app.kubernetes.io/name": exportName(d),
  "app.kubernetes.io/managed-by": "supervisor-export",
})

/** What every daemon's pod shares: its name, image, the addresses of the other daemons. */
interface Context {
  readonly config: ResolvedConfig
  readonly options: ExportOptions
  readonly exported: ReadonlyMap<string, ResolvedDaemon>
  readonly jobs: ReadonlySet<string>
  readonly cronJobs: ReadonlySet<string>
  /** The Service name that serves each port, by port (undefined: two daemons declare it). */
  readonly portOwners: ReadonlyMap<number, ResolvedDaemon | undefined>
  readonly w: Warnings
}

/** `localhost:PORT` of another daemon's port as that daemon's Service name. */
const addressFor = (ctx: Context, d: ResolvedDaemon) => addressedByOthers(ctx.portOwners, d, serviceName)

/** The daemon's container, its init containers and the objects that come with it (ConfigMap, Secret). */
const pod = (ctx: Context, d: ResolvedDaemon, restartPolicy: "Always" | "Never") => {
  const { config, w } = ctx
  const c = d.config
  const address = addressFor(ctx, d)
  const { run, env: rendered } = commandAndEnv(config, d, w)
  const main: IContainer = {
    name: exportName(d),
    image: imageOf(d, ctx.options),
    command: ["sh", "-c", literal(address(run))],
    workingDir: c.dir,
  }
  const env = envObjects(exportName(d), podEnv(config, d, rendered, w, address), labels(d))
  if (env.envFrom.length > 0) main.envFrom = env.envFrom
  if (c.port !== undefined) main.ports = c.port.expect.map((containerPort) => ({ containerPort }))
  const limits: Record<string, string> = {}
  if (c.memory_limit !== undefined) limits.memory = String(c.memory_limit)
  if (c.cpu_limit !== undefined) limits.cpu = `${Math.max(1, Math.round(c.cpu_limit * 10))}m`
  // requests as the limits: the scheduler places the pod where the limits fit
  if (Object.keys(limits).length > 0) main.resources = { limits, requests: { ...limits } }
  const waits = dependencyWaits(d, ctx.exported, ctx.jobs, ctx.cronJobs, w)
  const spec: IPodSpec = {
    restartPolicy,
    ...(c.stop_signal.timeout === undefined
      ? {}
      : { terminationGracePeriodSeconds: wholeSeconds(c.stop_signal.timeout) }),
    ...(waits.kubectl ? { serviceAccountName: WAIT_ACCOUNT } : {}),
    ...(waits.initContainers.length > 0 ? { initContainers: [...waits.initContainers] } : {}),
    containers: [main],
  }
  return { main, spec, objects: env.objects, kubectl: waits.kubectl }
}

const service = (d: ResolvedDaemon, ports: ReadonlyArray<number>): IService => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: serviceName(d), labels: labels(d) },
  spec: {
    selector: { "app.kubernetes.io/name": exportName(d) },
    ports: ports.map((port) => ({ name: `port-${port}`, port, targetPort: port, protocol: "TCP" })),
  },
})

const deployment = (ctx: Context, d: ResolvedDaemon, p: ReturnType<typeof pod>): IDeployment => {
  const { config, w } = ctx
  Object.assign(p.main, containerProbes(config, d, w))
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
      template: { metadata: { labels: labels(d) }, spec: p.spec },
    },
  }
}

/** `backoffLimit` of a Job from `retry`, and the warnings of the keys a run to completion drops. */
const jobBasics = (ctx: Context, d: ResolvedDaemon, kind: string): number => {
  const { config, w } = ctx
  const id = d.id.qualified
  const retry = effectiveRetry(d.config)
  if (retry === true) w.add(id, "retry", "(true: forever) is mapped to backoffLimit 6")
  if (Object.keys(readinessProbes(config, d, new Warnings())).length > 0)
    w.add(id, "ready_*", `is not mapped for a ${kind}: its pods run to completion`)
  if (d.config.health !== undefined)
    w.add(id, "health", `is not mapped for a ${kind}: its pods run to completion`)
  return retry === true ? 6 : retry === false ? 0 : retry
}

const job = (ctx: Context, d: ResolvedDaemon, p: ReturnType<typeof pod>): IJob => {
  const backoffLimit = jobBasics(ctx, d, "Job")
  const n = replicasOf(d)
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: exportName(d), labels: labels(d) },
    spec: {
      backoffLimit,
      // `instances` copies, each run once: the Job completes when all did
      ...(n > 1 ? { completions: n, parallelism: n } : {}),
      template: { metadata: { labels: labels(d) }, spec: p.spec },
    },
  }
}

const cronJob = (ctx: Context, d: ResolvedDaemon, schedule: string, p: ReturnType<typeof pod>): ICronJob => {
  const { w } = ctx
  const c = d.config
  const backoffLimit = jobBasics(ctx, d, "CronJob")
  const retrigger = c.cron?.retrigger ?? "finish"
  if (retrigger !== "finish" && retrigger !== "always")
    w.add(d.id.qualified, "cron.retrigger", `(${retrigger}) is mapped to concurrencyPolicy Forbid`)
  if (c.cron?.immediate === true)
    w.add(d.id.qualified, "cron.immediate", "is not mapped (startingDeadlineSeconds is the closest)")
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
        spec: { backoffLimit, template: { metadata: { labels: labels(d) }, spec: p.spec } },
      },
    },
  }
}

const yamlDoc = (o: object): string =>
  stringify(o, { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false })

/** `supervisor export kubernetes`: a file per daemon, and one for the ServiceAccount of the waits. */
export const exportKubernetes = (config: ResolvedConfig, options: ExportOptions = {}): ExportResult => {
  const w = new Warnings()
  const files: Array<ExportFile> = []
  const daemons = daemonsOf(config, w)
  warnPlaceholderImage(
    daemons,
    options,
    w,
    "kubernetes",
    "in the daemon's directory",
    "the daemons' programs and files",
  )
  const schedules = new Map<string, string>()
  for (const d of daemons) {
    const c = d.config
    const five = c.cron === undefined ? undefined : toFiveFields(c.cron.schedule)
    if (five !== undefined && "problem" in five)
      w.add(d.id.qualified, "cron", `(${c.cron?.schedule}) ${five.problem}: exported as a Deployment`)
    if (five !== undefined && "value" in five) schedules.set(d.id.qualified, five.value)
  }
  const jobs = new Set([...awaitedToComplete(daemons)].filter((id) => !schedules.has(id)))
  const services = daemons.filter((d) => !schedules.has(d.id.qualified) && !jobs.has(d.id.qualified))
  const ctx: Context = {
    config,
    options,
    exported: new Map(daemons.map((d) => [d.id.qualified, d] as const)),
    jobs,
    cronJobs: new Set(schedules.keys()),
    portOwners: portOwnersOf(services),
    w,
  }
  let kubectl = false
  for (const d of daemons) {
    const c = d.config
    const id = d.id.qualified
    warnUnmappable(d, w, "kubernetes")
    warnRestartKeys(d, w, "kubernetes")
    if (c.stop_signal.signal !== "SIGTERM")
      w.add(id, "stop_signal", `(${c.stop_signal.signal}) is not mapped: Kubernetes sends SIGTERM`)
    if (c.user !== undefined) w.add(id, "user", `(${c.user}) is not mapped: set securityContext.runAsUser`)
    if (c.boot_start) w.add(id, "boot_start", "is left to the cluster: workloads are always started")
    const schedule = schedules.get(id)
    const isJob = jobs.has(id)
    const p = pod(ctx, d, schedule !== undefined || isJob ? "Never" : "Always")
    kubectl ||= p.kubectl
    const docs: Array<object> = []
    if (schedule !== undefined) docs.push(cronJob(ctx, d, schedule, p))
    else if (isJob) docs.push(job(ctx, d, p))
    else {
      docs.push(deployment(ctx, d, p))
      if (c.port !== undefined && c.port.expect.length > 0) {
        docs.push(service(d, c.port.expect))
        const { run, env } = commandAndEnv(config, d, new Warnings())
        for (const [key, what] of loopbackBinds(run, env))
          w.add(
            id,
            key,
            `binds the loopback address (${what}): its Service cannot reach it; bind 0.0.0.0 in the container`,
          )
      }
    }
    docs.push(...p.objects)
    files.push({
      path: `${exportName(d)}.yaml`,
      content: `# ${id}, exported by supervisor from ${d.source}\n${docs.map(yamlDoc).join("---\n")}`,
    })
  }
  if (kubectl)
    files.push({
      path: `${WAIT_ACCOUNT}.yaml`,
      content: `# the account of the init containers that wait with kubectl for a dependency, exported by supervisor\n${waitAccount().map(yamlDoc).join("---\n")}`,
    })
  return { files, warnings: w.list }
}
