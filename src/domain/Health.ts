import { Duration, Schema } from "effect"
import { formatHumanDuration, HumanDuration } from "./HumanDuration.js"
import { normalise, PortOrTemplate, statuses, TemplateString, url } from "./Readiness.js"

// `[daemons.<name>.health]`: a liveness check run while the daemon is ready (docs/health.md).
// Its check takes the forms of the readiness checks (`ready_http`, `ready_port`, `ready_cmd`).

/** The check's pause between two attempts when `interval` is not set. */
export const DEFAULT_HEALTH_INTERVAL = Duration.seconds(10)
/** The longest an attempt may take when `timeout` is not set (never longer than `interval`). */
export const DEFAULT_HEALTH_TIMEOUT = Duration.seconds(5)
/** Consecutive failed attempts that make the daemon unhealthy when `failures` is not set. */
export const DEFAULT_HEALTH_FAILURES = 3

export const HealthHttp = Schema.Struct({
  url,
  status: Schema.optionalWith(statuses, { default: () => [] }),
})
const HealthHttpOption = normalise(
  Schema.Union(url, Schema.Struct({ url, status: Schema.optional(statuses) })).annotations({
    description:
      'Healthy when this URL answers 2xx: a URL string, or { url = "...", status = [401] } where status lists more accepted codes. Supports templates.',
  }),
  Schema.typeSchema(HealthHttp),
  (raw) => (typeof raw === "string" ? { url: raw, status: [] } : { ...raw, status: raw.status ?? [] }),
)

const described = <A, I>(schema: Schema.Schema<A, I>, description: string, defaultValue?: I) =>
  Schema.optional(
    schema.annotations(
      defaultValue === undefined ? { description } : { description, default: defaultValue as unknown as A },
    ),
  )

export const healthFields = {
  http: described(HealthHttpOption, "Healthy when this URL answers 2xx (or a listed status)"),
  port: described(PortOrTemplate, "Healthy while the daemon listens on this TCP port"),
  cmd: described(
    TemplateString,
    "Healthy when this shell command exits 0; it runs in the daemon's dir, env and user. Supports templates.",
  ),
  interval: described(HumanDuration, "The pause between two checks (default 10s)", "10s"),
  timeout: described(
    HumanDuration,
    "How long one check may take before it counts as failed (default: 5s, or interval when shorter); not longer than interval",
  ),
  failures: described(
    Schema.Int.pipe(Schema.between(1, 1000)).annotations({
      message: () => "expected a whole number of checks between 1 and 1000",
    }),
    "Consecutive failed checks that make the daemon unhealthy (then on_unhealthy fires and it is restarted, using a retry); default 3",
    3,
  ),
  start_period: described(
    HumanDuration,
    "Grace after the daemon is ready: no check runs before it is over (default 0s)",
    "0s",
  ),
}

const spelled = (d: Duration.Duration) => formatHumanDuration(Duration.toMillis(d))

/** Why a health table cannot be used: not exactly one check, or a timeout longer than its interval. */
export const healthProblem = (h: {
  readonly http?: unknown
  readonly port?: unknown
  readonly cmd?: unknown
  readonly interval?: Duration.Duration | undefined
  readonly timeout?: Duration.Duration | undefined
}): string | undefined => {
  const set = (["http", "port", "cmd"] as const).filter((k) => h[k] !== undefined)
  if (set.length === 0) return 'set one check: http = "URL", port = N or cmd = "command"'
  if (set.length > 1) return `set one check, not ${set.join(" and ")}: keep one of them`
  if (h.interval !== undefined && h.timeout !== undefined && Duration.lessThan(h.interval, h.timeout))
    return `interval ${spelled(h.interval)} is shorter than timeout ${spelled(h.timeout)}: a check must end before the next one; raise interval or lower timeout`
  return undefined
}

export const Health = Schema.Struct(healthFields).pipe(
  Schema.filter((h) => healthProblem(h) ?? true),
  Schema.annotations({
    identifier: "Health",
    description:
      "A liveness check run while the daemon is ready: one of http, port or cmd, with interval, timeout, failures and start_period",
  }),
)
export type Health = typeof Health.Type
