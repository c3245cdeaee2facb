import { Duration } from "effect"
import type { DaemonConfig } from "../../domain/DaemonConfig.js"
import {
  DEFAULT_HEALTH_FAILURES,
  DEFAULT_HEALTH_INTERVAL,
  DEFAULT_HEALTH_TIMEOUT,
  type Health,
} from "../../domain/Health.js"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import { describeCheck, type ReadinessCheck } from "../readiness/index.js"

/** A daemon's health check with its defaults applied; `check` is in the readiness checks' form. */
export interface HealthSpec {
  readonly check: Extract<ReadinessCheck, { readonly _tag: "http" | "port" | "cmd" }>
  readonly interval: Duration.Duration
  readonly timeout: Duration.Duration
  readonly failures: number
  readonly startPeriod: Duration.Duration
}

/** The config key of the check, as users write it: `health.http`, `health.port`, `health.cmd`. */
export const healthKey = (spec: HealthSpec): string => `health.${spec.check._tag}`

/** The daemon's health check, when it has one (the schema made sure it sets exactly one check). */
export const healthSpec = (config: Pick<DaemonConfig, "health">): HealthSpec | undefined => {
  const h: Health | undefined = config.health
  if (h === undefined) return undefined
  const check: HealthSpec["check"] | undefined =
    h.http !== undefined
      ? { _tag: "http", url: h.http.url, status: h.http.status, timeout: undefined }
      : h.port !== undefined
        ? { _tag: "port", port: h.port, timeout: undefined }
        : h.cmd !== undefined
          ? { _tag: "cmd", run: h.cmd, timeout: undefined }
          : undefined
  if (check === undefined) return undefined
  const interval = h.interval ?? DEFAULT_HEALTH_INTERVAL
  return {
    check,
    interval,
    timeout: h.timeout ?? Duration.min(DEFAULT_HEALTH_TIMEOUT, interval),
    failures: h.failures ?? DEFAULT_HEALTH_FAILURES,
    startPeriod: h.start_period ?? Duration.zero,
  }
}

/** `health.http (http://127.0.0.1:3000/health) failed 3 times in a row: GET …: HTTP 503` */
export const unhealthyMessage = (spec: HealthSpec, failures: number, output: string): string =>
  `${healthKey(spec)} (${describeCheck(spec.check)}) failed ${failures} time${failures === 1 ? "" : "s"} in a row${output === "" ? "" : `: ${output}`}`

/** The interval, in words, for the log. */
export const intervalText = (spec: HealthSpec): string =>
  formatHumanDuration(Duration.toMillis(spec.interval))
