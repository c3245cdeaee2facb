import { awaitsExit, conditionOf } from "../domain/Dependency.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { toSevenFields } from "./cron.js"
import {
  daemonsOf,
  dnsLabel,
  type ExportFile,
  type ExportResult,
  exportName,
  Warnings,
  warnEnvFiles,
  warnUnmappable,
} from "./model.js"
import { type Obj, portLabel, restartPolicy, serviceOf, taskOf } from "./nomadTask.js"
import { replicasOf } from "./replicas.js"
import { warnRestartKeys } from "./restart.js"

// Nomad jobs in the JSON job specification (`nomad job run -json FILE`): one service job per
// project, a group per daemon with its raw_exec task; a daemon's `depends` are prestart tasks of
// its group (the dependency itself for `completed`, a wait on its service otherwise). A cron
// daemon is a periodic batch job of its own (a job has one type).

/** What the jobs need of the clients, said in each job's Meta and as a warning. */
const RAW_EXEC =
  'raw_exec, which is off by default: enable it on the clients (plugin "raw_exec" { config { enabled = true } })'

/** A task that runs before the group's main task, to its end. */
const prestart = (task: Obj): Obj => ({ ...task, Lifecycle: { Hook: "prestart", Sidecar: false } })

/**
 * A prestart task that waits until the dependency's service (Nomad's service discovery, rendered
 * by a template as it changes) accepts a connection on its port (bash's /dev/tcp: no nc needed).
 */
const waitFor = (dependency: ResolvedDaemon): Obj => {
  const name = exportName(dependency)
  const file = `local/${name}.addr`
  return prestart({
    Name: `wait-${name}`.slice(0, 63),
    Driver: "raw_exec",
    Config: {
      command: "/bin/sh",
      args: [
        "-c",
        `until [ -s ${file} ] && bash -c 'exec 3<>/dev/tcp/$0/$1' $(head -n 1 ${file}) 2>/dev/null; do sleep 1; done`,
      ],
    },
    Templates: [
      {
        EmbeddedTmpl: `{{ range nomadService "${name}" }}{{ .Address }} {{ .Port }}\n{{ end }}`,
        DestPath: file,
        ChangeMode: "noop",
      },
    ],
  })
}

/** The daemons awaited to complete, and those awaited otherwise (ready, started). */
const awaitedBy = (daemons: ReadonlyArray<ResolvedDaemon>) => {
  const completion = new Map<string, Array<string>>()
  const otherwise = new Set<string>()
  for (const d of daemons)
    for (const dep of d.config.depends) {
      if (awaitsExit(conditionOf(d.config, dep)))
        completion.set(dep, [...(completion.get(dep) ?? []), d.id.qualified])
      else otherwise.add(dep)
    }
  return { completion, otherwise }
}

interface Context {
  readonly config: ResolvedConfig
  readonly w: Warnings
}

/** A daemon's group: its dependencies' prestart tasks, its task, ports, restart policy, service. */
const groupOf = (ctx: Context, d: ResolvedDaemon): Obj => {
  const { config, w } = ctx
  const c = d.config
  const id = d.id.qualified
  const name = exportName(d)
  const tasks: Array<Obj> = []
  for (const dep of c.depends) {
    const target = config.daemons[dep]
    if (target === undefined) {
      w.add(id, "depends", `names ${dep}, which is not in the configuration: left out`)
      continue
    }
    if (awaitsExit(conditionOf(c, dep))) {
      tasks.push(prestart(taskOf(config, target, w, exportName(target))))
      if (target.config.depends.length > 0)
        w.add(id, `depends (${dep})`, "runs as a prestart task here: its own dependencies are not awaited")
    } else if (target.config.port !== undefined && target.config.cron === undefined)
      tasks.push(waitFor(target))
    else
      w.add(
        id,
        `depends (${dep})`,
        "has no port to wait on (a prestart task waits for a dependency's service): they start in any order",
      )
  }
  tasks.push(taskOf(config, d, w, name))
  const group: Obj = { Name: name, Count: replicasOf(d), RestartPolicy: restartPolicy(d), Tasks: tasks }
  if (c.port !== undefined && replicasOf(d) > 1)
    w.add(
      id,
      "instances",
      `(${replicasOf(d)}) is Count ${replicasOf(d)}: with its reserved ports, each allocation needs a node of its own (use dynamic ports to run several on one node)`,
    )
  if (c.port !== undefined)
    group.Networks = [{ ReservedPorts: c.port.expect.map((p) => ({ Label: portLabel(p), Value: p })) }]
  const service = serviceOf(config, d, w, name)
  if (service !== undefined) group.Services = [service]
  return group
}

/** A cron daemon's periodic batch job. */
const periodicJob = (ctx: Context, d: ResolvedDaemon): Obj => {
  const c = d.config
  const id = d.id.qualified
  const name = exportName(d)
  if (c.health !== undefined) ctx.w.add(id, "health", "is not mapped for a periodic batch job")
  if (c.depends.length > 0)
    ctx.w.add(id, "depends", "is not mapped for a periodic batch job: it runs on its schedule")
  if (c.cron!.retrigger !== "finish" && c.cron!.retrigger !== "always")
    ctx.w.add(id, "cron.retrigger", `(${c.cron!.retrigger}) is mapped to ProhibitOverlap`)
  if (c.cron!.immediate) ctx.w.add(id, "cron.immediate", "has no Nomad equivalent")
  return {
    Job: {
      ID: name,
      Name: name,
      Type: "batch",
      Datacenters: ["*"],
      Meta: { "supervisor.daemon": id, "supervisor.source": d.source, "supervisor.driver": RAW_EXEC },
      Periodic: {
        Enabled: true,
        SpecType: "cron",
        Spec: toSevenFields(c.cron!.schedule),
        ProhibitOverlap: c.cron!.retrigger !== "always",
      },
      TaskGroups: [
        {
          Name: name,
          Count: 1,
          RestartPolicy: restartPolicy(d),
          Tasks: [taskOf(ctx.config, d, ctx.w, name)],
        },
      ],
    },
  }
}

/** The job's name for a namespace: a DNS label, as the daemons' exported names are. */
const jobName = (namespace: string): string => dnsLabel(namespace) || "supervisor"

/** `supervisor export nomad`: a service job per project, a periodic job per cron daemon. */
export const exportNomad = (config: ResolvedConfig): ExportResult => {
  const w = new Warnings()
  const daemons = daemonsOf(config, w)
  const { completion, otherwise } = awaitedBy(daemons)
  // a task awaited to complete, and nothing else, runs only before its dependents
  const prestartOnly = new Set(
    daemons
      .filter(
        (d) =>
          completion.has(d.id.qualified) &&
          !otherwise.has(d.id.qualified) &&
          d.config.cron === undefined &&
          d.config.port === undefined,
      )
      .map((d) => d.id.qualified),
  )
  const ctx: Context = { config, w }
  const projects = new Map<string, Array<Obj>>()
  const files: Array<ExportFile> = []
  for (const d of daemons) {
    const id = d.id.qualified
    warnUnmappable(d, w, "nomad")
    warnEnvFiles(d, w, "nomad")
    warnRestartKeys(d, w, "nomad")
    if (d.config.boot_start) w.add(id, "boot_start", "is left to Nomad: jobs run while the cluster does")
    const dependents = completion.get(id) ?? []
    if (prestartOnly.has(id)) {
      if (dependents.length > 1)
        w.add(
          id,
          "depends",
          `runs as a prestart task of each dependent's group (${dependents.join(", ")}): once per group`,
        )
      continue
    }
    if (dependents.length > 0)
      w.add(id, "depends", `runs in its own group and as a prestart task of ${dependents.join(", ")}`)
    if (d.config.cron !== undefined) {
      files.push({
        path: `${exportName(d)}.nomad.json`,
        content: `${JSON.stringify(periodicJob(ctx, d), null, 2)}\n`,
      })
      continue
    }
    const groups = projects.get(d.id.namespace) ?? []
    groups.push(groupOf(ctx, d))
    projects.set(d.id.namespace, groups)
  }
  for (const [namespace, groups] of projects) {
    const name = jobName(namespace)
    const job = {
      Job: {
        ID: name,
        Name: name,
        Type: "service",
        Datacenters: ["*"],
        Meta: { "supervisor.project": namespace, "supervisor.driver": RAW_EXEC },
        TaskGroups: groups,
      },
    }
    files.push({ path: `${name}.nomad.json`, content: `${JSON.stringify(job, null, 2)}\n` })
  }
  if (files.length > 0)
    w.general(`nomad: the tasks use the driver ${RAW_EXEC}; waits for dependencies need bash there`)
  return { files: files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), warnings: w.list }
}
