import { awaitsExit, conditionOf } from "../domain/Dependency.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { toOnCalendar } from "./cron.js"
import {
  commandAndEnv,
  daemonsOf,
  type ExportFile,
  type ExportResult,
  envFilesOf,
  exportName,
  renderPorts,
  Warnings,
  warnUnmappable,
  wholeSeconds,
} from "./model.js"
import { withInstances } from "./replicas.js"
import { effectiveRetry, warnRestartKeys } from "./restart.js"
import { systemdHealth } from "./systemdHealth.js"
import { plain, quoted, shell } from "./systemdText.js"

// systemd user units (`~/.config/systemd/user/`): one .service per daemon, a .timer per cron
// daemon. Facts from systemd.unit(5), systemd.service(5), systemd.exec(5), systemd.resource-control(5).

/** A command polled until it succeeds: ExecStartPost= holds dependents until the daemon is ready. */
const untilReady = (check: string): string => shell(`until ${check}; do sleep 1; done`)

const unitName = (d: ResolvedDaemon) => `${exportName(d)}.service`

const serviceUnit = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  completedDeps: ReadonlySet<string>,
  w: Warnings,
  healthTimer: string | undefined,
): string => {
  const c = d.config
  const id = d.id.qualified
  const { run, env } = commandAndEnv(config, d, w)
  const unit: Array<string> = [`Description=supervisor daemon ${id}`]
  const service: Array<string> = []
  const deps = c.depends.flatMap((dep) => {
    const target = config.daemons[dep]
    if (target === undefined) {
      w.add(id, "depends", `names ${dep}, which is not in the configuration: left out`)
      return []
    }
    return [unitName(target)]
  })
  if (deps.length > 0) unit.push(`After=${deps.join(" ")}`, `Requires=${deps.join(" ")}`)
  // a dependency with restart_dependents: its stop or restart is propagated to this unit
  const partOf = c.depends.flatMap((dep) => {
    const target = config.daemons[dep]
    return target?.config.restart_dependents ? [unitName(target)] : []
  })
  if (partOf.length > 0) unit.push(`PartOf=${partOf.join(" ")}`)
  // its health checks start with it (and stop with it: the timer is PartOf= this unit)
  if (healthTimer !== undefined) unit.push(`Wants=${healthTimer}`)
  for (const dep of c.depends) {
    const t = config.daemons[dep]
    if (t !== undefined && conditionOf(c, dep) === "ready" && readinessOf(config, t, w, false) === undefined)
      w.add(
        id,
        `depends (${dep})`,
        "waits for readiness, but the dependency's check has no systemd form: After= waits for its start only",
      )
  }
  const oneshot = completedDeps.has(id) || c.cron !== undefined
  service.push(`Type=${oneshot ? "oneshot" : "simple"}`)
  if (completedDeps.has(id) && c.cron === undefined) service.push("RemainAfterExit=yes")
  service.push(`WorkingDirectory=${plain(c.dir)}`)
  for (const [k, v] of Object.entries(env)) service.push(`Environment=${quoted(`${k}=${v}`)}`)
  const files = envFilesOf(c)
  for (const f of files) service.push(`EnvironmentFile=${f.optional ? "-" : ""}${plain(f.path)}`)
  if (files.length > 0)
    w.add(
      id,
      "env_file",
      "is exported as EnvironmentFile=, whose values override Environment= (the supervisor's env wins over env files) and which expands no variables",
    )
  service.push(`ExecStart=${shell(run)}`)
  const ready = readinessOf(config, d, w, true)
  if (ready !== undefined && !oneshot) {
    service.push(`ExecStartPost=${ready.command}`)
    if (ready.timeout !== undefined) service.push(`TimeoutStartSec=${ready.timeout}`)
  }
  const retry = effectiveRetry(c)
  if (retry === true || (typeof retry === "number" && retry > 0)) {
    // systemd refuses Restart=always for a oneshot unit (a `completed` dependency)
    if (c.restart === "always" && oneshot)
      w.add(
        id,
        "restart",
        '("always") is mapped to Restart=on-failure: a oneshot unit cannot restart after success',
      )
    service.push(c.restart === "always" && !oneshot ? "Restart=always" : "Restart=on-failure")
    if (retry === true) unit.push("StartLimitIntervalSec=0")
    else unit.push("StartLimitIntervalSec=infinity", `StartLimitBurst=${retry + 1}`)
  } else service.push("Restart=no")
  const successCodes = c.success_exit_codes.filter((code) => code !== 0)
  if (successCodes.length > 0) service.push(`SuccessExitStatus=${successCodes.join(" ")}`)
  if (!c.success_exit_codes.includes(0))
    w.add(id, "success_exit_codes", "(without 0) is not mapped: systemd counts an exit 0 as a success")
  if (c.memory_limit !== undefined) service.push(`MemoryMax=${c.memory_limit}`)
  if (c.cpu_limit !== undefined) service.push(`CPUQuota=${c.cpu_limit}%`)
  service.push(`KillSignal=${c.stop_signal.signal}`, "KillMode=control-group")
  if (c.stop_signal.timeout !== undefined)
    service.push(`TimeoutStopSec=${wholeSeconds(c.stop_signal.timeout)}`)
  if (c.user !== undefined)
    w.add(id, "user", `(${c.user}) cannot be set in a user unit (User= needs a system unit): left out`)
  const install = c.cron === undefined ? ["[Install]", "WantedBy=default.target", ""] : []
  return [
    `# ${id}, exported by supervisor from ${d.source}`,
    "[Unit]",
    ...unit,
    "",
    "[Service]",
    ...service,
    "",
    ...install,
  ].join("\n")
}

/** The ExecStartPost= form of a daemon's readiness check, when it has one. */
const readinessOf = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
  report: boolean,
): { command: string; timeout?: number } | undefined => {
  const c = d.config
  const id = d.id.qualified
  const warn = (key: string, why: string) => {
    if (report) w.add(id, key, why)
  }
  if (c.ready_output !== undefined)
    warn("ready_output", "(an output line) has no systemd form: the unit is ready when started")
  if (c.ready_http !== undefined)
    warn(
      "ready_http",
      "has no systemd form (it would need curl in ExecStartPost=): the unit is ready when started",
    )
  if (c.ready_port !== undefined) warn("ready_port", "has no systemd form: the unit is ready when started")
  if (c.ready_cmd !== undefined) {
    const check = renderPorts(config, d, "ready_cmd", c.ready_cmd.run, report ? w : new Warnings())
    return c.ready_cmd.timeout === undefined
      ? { command: untilReady(check) }
      : { command: untilReady(check), timeout: wholeSeconds(c.ready_cmd.timeout) }
  }
  if (c.ready_delay !== undefined && c.ready_delay > 0) return { command: `/bin/sleep ${c.ready_delay}` }
  return undefined
}

const timerUnit = (d: ResolvedDaemon, w: Warnings): string | undefined => {
  const cron = d.config.cron
  if (cron === undefined) return undefined
  const id = d.id.qualified
  const calendar = toOnCalendar(cron.schedule)
  if ("problem" in calendar) {
    w.add(id, "cron", `(${cron.schedule}) ${calendar.problem}: no timer written`)
    return undefined
  }
  if (cron.retrigger !== "finish")
    w.add(
      id,
      "cron.retrigger",
      `(${cron.retrigger}) is not mapped: a timer never starts a unit still running (finish)`,
    )
  if (cron.immediate)
    w.add(id, "cron.immediate", "is mapped to Persistent=true (a missed run fires at start)")
  return [
    `# ${id}: the schedule ${cron.schedule}`,
    "[Unit]",
    `Description=schedule of supervisor daemon ${id}`,
    "",
    "[Timer]",
    `OnCalendar=${calendar.value}`,
    "AccuracySec=1s",
    `Unit=${unitName(d)}`,
    ...(cron.immediate ? ["Persistent=true"] : []),
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n")
}

/** `supervisor export systemd`. */
export const exportSystemd = (configured: ResolvedConfig): ExportResult => {
  const w = new Warnings()
  // no count in systemd: a unit per instance, each with its own ports (app--api-1.service ...)
  const config = withInstances(configured)
  const daemons = daemonsOf(config, w)
  const completed = new Set(
    daemons.flatMap((d) => d.config.depends.filter((dep) => awaitsExit(conditionOf(d.config, dep)))),
  )
  const files: Array<ExportFile> = []
  for (const d of daemons) {
    warnUnmappable(d, w, "systemd")
    warnRestartKeys(d, w, "systemd", { successCodes: true, dependents: true })
    if (d.config.boot_start)
      w.add(d.id.qualified, "boot_start", "needs `loginctl enable-linger` for user units to start at boot")
    const health = d.config.cron === undefined ? systemdHealth(config, d, w) : undefined
    if (d.config.cron !== undefined && d.config.health !== undefined)
      w.add(d.id.qualified, "health", "is not mapped for a scheduled unit: it runs to completion")
    files.push({ path: unitName(d), content: serviceUnit(config, d, completed, w, health?.timer) })
    if (health !== undefined) files.push(...health.files)
    const timer = timerUnit(d, w)
    if (timer !== undefined) files.push({ path: `${exportName(d)}.timer`, content: timer })
  }
  return { files, warnings: w.list }
}
