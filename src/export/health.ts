import { Duration } from "effect"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { healthSpec } from "../supervisor/health/spec.js"
import { type HttpProbeTarget, httpProbeTarget, renderPorts, type Warnings, wholeSeconds } from "./model.js"

// A daemon's health check in the terms every target shares: what it checks (templates rendered
// with the configured ports) and its timing in whole seconds.

export type HealthTarget =
  | ({ readonly _tag: "http" } & HttpProbeTarget)
  | { readonly _tag: "port"; readonly port: number }
  | { readonly _tag: "cmd"; readonly run: string }

export interface ExportedHealth {
  readonly target: HealthTarget
  readonly intervalSeconds: number
  readonly timeoutSeconds: number
  readonly failures: number
  /** 0 when none. */
  readonly startPeriodSeconds: number
}

/** The daemon's health check for an export, or undefined (with a warning when it cannot be mapped). */
export const exportedHealth = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  w: Warnings,
): ExportedHealth | undefined => {
  const spec = healthSpec(d.config)
  if (spec === undefined) return undefined
  const id = d.id.qualified
  const check = spec.check
  let target: HealthTarget | undefined
  if (check._tag === "http") {
    const text = renderPorts(config, d, "health.http", check.url, w)
    const probe = httpProbeTarget(text)
    if (probe === undefined) w.add(id, "health.http", `(${text}) is not a URL once rendered: left out`)
    else {
      if (check.status.length > 0)
        w.add(id, "health.http.status", "(more accepted codes) is not mapped: the check wants 2xx")
      target = { _tag: "http", ...probe }
    }
  } else if (check._tag === "port") {
    const port = Number(renderPorts(config, d, "health.port", String(check.port), w))
    if (Number.isInteger(port)) target = { _tag: "port", port }
    else w.add(id, "health.port", "names a daemon without a port: left out")
  } else target = { _tag: "cmd", run: renderPorts(config, d, "health.cmd", check.run, w) }
  if (target === undefined) return undefined
  return {
    target,
    intervalSeconds: wholeSeconds(spec.interval),
    timeoutSeconds: wholeSeconds(spec.timeout),
    failures: spec.failures,
    startPeriodSeconds: Duration.isZero(spec.startPeriod) ? 0 : wholeSeconds(spec.startPeriod),
  }
}
