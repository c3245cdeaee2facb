import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { posixQuote } from "../shell/quote.js"
import { type ExportedHealth, exportedHealth, type HealthTarget } from "./health.js"
import { exportName, type Warnings } from "./model.js"
import { plain, shell } from "./systemdText.js"

// A daemon's health check for systemd, which has no liveness probe of its own: a timer runs a
// oneshot check service every `interval` while the daemon's unit runs; the check counts its
// consecutive failures in the user's runtime directory and restarts the daemon's unit at
// `failures`, as the supervisor does. (WatchdogSec= would need the daemon to call sd_notify.)

/** The check as one shell command that exits 0 when the daemon is healthy. */
const probe = (target: HealthTarget, timeout: number): string => {
  switch (target._tag) {
    case "http":
      return `curl -fsS -o /dev/null -m ${timeout} ${posixQuote(target.href)}`
    case "port":
      return `timeout ${timeout} bash -c 'exec 3<>/dev/tcp/127.0.0.1/${target.port}'`
    case "cmd":
      return `timeout ${timeout} sh -c ${posixQuote(target.run)}`
  }
}

/** The check's script: a pass clears the count, the `failures`-th failure in a row restarts the unit. */
const script = (health: ExportedHealth, unit: string, countFile: string): string =>
  [
    `if ${probe(health.target, health.timeoutSeconds)}; then rm -f ${countFile}; exit 0; fi`,
    `n=$(( $(cat ${countFile} 2>/dev/null || echo 0) + 1 ))`,
    `if [ "$n" -ge ${health.failures} ]; then rm -f ${countFile}; exec systemctl --user restart ${unit}; fi`,
    `echo "$n" > ${countFile}`,
  ].join("; ")

export interface SystemdHealth {
  /** `NAME-health.service` and `NAME-health.timer`. */
  readonly files: ReadonlyArray<{ readonly path: string; readonly content: string }>
  /** The timer, for the daemon's `Wants=` (started with it) and `PartOf=` (stopped with it). */
  readonly timer: string
}

/** The check service and its timer for a daemon's health check, when it has one. */
export const systemdHealth = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): SystemdHealth | undefined => {
  const health = exportedHealth(config, d, w)
  if (health === undefined) return undefined
  const id = d.id.qualified
  const name = exportName(d)
  const unit = `${name}.service`
  const timer = `${name}-health.timer`
  if (health.target._tag === "http")
    w.add(id, "health.http", "is checked with curl: it must be installed where the units run")
  // in the user's runtime directory (the user manager sets XDG_RUNTIME_DIR), emptied at logout
  const countFile = `"$XDG_RUNTIME_DIR/${name}.health-failures"`
  const service = [
    `# the health check of ${id}: every ${health.intervalSeconds} s while ${unit} runs`,
    "[Unit]",
    `Description=health check of supervisor daemon ${id}`,
    `After=${unit}`,
    `Requisite=${unit}`,
    "",
    "[Service]",
    "Type=oneshot",
    `WorkingDirectory=${plain(d.config.dir)}`,
    `ExecStart=${shell(script(health, unit, countFile))}`,
    "",
  ].join("\n")
  const timerUnit = [
    `# runs ${name}-health.service while ${unit} runs`,
    "[Unit]",
    `Description=health checks of supervisor daemon ${id}`,
    `PartOf=${unit}`,
    `After=${unit}`,
    "",
    "[Timer]",
    `OnActiveSec=${Math.max(1, health.startPeriodSeconds + health.intervalSeconds)}`,
    `OnUnitActiveSec=${Math.max(1, health.intervalSeconds)}`,
    "AccuracySec=1s",
    `Unit=${name}-health.service`,
    "",
  ].join("\n")
  return {
    files: [
      { path: `${name}-health.service`, content: service },
      { path: timer, content: timerUnit },
    ],
    timer,
  }
}
