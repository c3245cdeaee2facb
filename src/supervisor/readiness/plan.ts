import { Duration } from "effect"
import type { DaemonConfig } from "../../domain/DaemonConfig.js"
import type { ReadyKey } from "../../domain/DaemonOptions.js"
import { formatHumanDuration } from "../../domain/HumanDuration.js"

/** `ready_delay` when a daemon has no other readiness check. */
export const DEFAULT_READY_DELAY_SECONDS = 3

/** One readiness check of a daemon, as configured (templates not rendered yet). */
export type ReadinessCheck =
  | { readonly _tag: "delay"; readonly seconds: number }
  | { readonly _tag: "output"; readonly pattern: string; readonly timeout: Duration.Duration | undefined }
  | {
      readonly _tag: "http"
      readonly url: string
      readonly status: ReadonlyArray<number>
      readonly timeout: Duration.Duration | undefined
    }
  | {
      readonly _tag: "port"
      readonly port: number | string
      readonly timeout: Duration.Duration | undefined
      /**
       * The daemon whose listener counts (qualified ID), set when the port is a template naming
       * one: `ready_port = "{{ daemons.db.port }}"` waits for db's listener. Else the daemon's own.
       */
      readonly owner?: string
    }
  | { readonly _tag: "cmd"; readonly run: string; readonly timeout: Duration.Duration | undefined }

export type ReadyFields = Pick<DaemonConfig, ReadyKey>

/**
 * The checks a start waits on: every configured `ready_output`, `ready_http`, `ready_port` and
 * `ready_cmd`; `ready_delay` (default 3 s) only when none of those is configured.
 */
export const readinessChecks = (config: ReadyFields): ReadonlyArray<ReadinessCheck> => {
  const checks: Array<ReadinessCheck> = []
  if (config.ready_output)
    checks.push({
      _tag: "output",
      pattern: config.ready_output.pattern,
      timeout: config.ready_output.timeout,
    })
  if (config.ready_http)
    checks.push({
      _tag: "http",
      url: config.ready_http.url,
      status: config.ready_http.status,
      timeout: config.ready_http.timeout,
    })
  if (config.ready_port)
    checks.push({ _tag: "port", port: config.ready_port.port, timeout: config.ready_port.timeout })
  if (config.ready_cmd)
    checks.push({ _tag: "cmd", run: config.ready_cmd.run, timeout: config.ready_cmd.timeout })
  if (checks.length === 0)
    checks.push({ _tag: "delay", seconds: config.ready_delay ?? DEFAULT_READY_DELAY_SECONDS })
  return checks
}

/** The config key of a check, as users write it. */
export const checkKey = (check: ReadinessCheck): string => `ready_${check._tag}`

const seconds = (s: number) => formatHumanDuration(Math.round(s * 1000))

/** What is being waited on, in words: `http://127.0.0.1:3000/health`, `port 5432`, ... */
export const describeCheck = (check: ReadinessCheck): string => {
  switch (check._tag) {
    case "delay":
      return seconds(check.seconds)
    case "output":
      return `output matching /${check.pattern}/`
    case "http":
      return check.url
    case "port":
      return `port ${check.port}`
    case "cmd":
      return `\`${check.run}\` to exit 0`
  }
}

/** Every check of a start, in words, joined with "or" (the first to pass wins). */
export const describeChecks = (checks: ReadonlyArray<ReadinessCheck>): string =>
  checks.map(describeCheck).join(" or ")

/** The message of a start whose every check timed out (each of them has a timeout). */
export const timedOutMessage = (id: string, checks: ReadonlyArray<ReadinessCheck>): string =>
  `${id} was not ready in time: ${checks
    .map(
      (c) =>
        `${checkKey(c)} (${describeCheck(c)}) timed out after ${
          "timeout" in c && c.timeout ? formatHumanDuration(Duration.toMillis(c.timeout)) : "?"
        }`,
    )
    .join(", ")}`
