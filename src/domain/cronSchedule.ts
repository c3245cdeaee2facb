import { Cron } from "croner"
import type { DaemonDefinition } from "./DaemonDefinition.js"
import type { RETRIGGERS } from "./DaemonOptions.js"

// The pure part of cron (docs/cron.md): when a schedule fires next, and what a firing does.

export type Retrigger = (typeof RETRIGGERS)[number]

/** One daemon's schedule, as its configuration says now. */
export interface CronSchedule {
  readonly id: string
  readonly schedule: string
  readonly retrigger: Retrigger
  readonly immediate: boolean
}

export const sameSchedule = (a: CronSchedule, b: CronSchedule) =>
  a.id === b.id && a.schedule === b.schedule && a.retrigger === b.retrigger && a.immediate === b.immediate

/** The schedule of a definition; undefined without a `cron` key. */
export const scheduleOf = (def: DaemonDefinition): CronSchedule | undefined => {
  const cron = def.config.cron
  return cron === undefined
    ? undefined
    : { id: def.id.qualified, schedule: cron.schedule, retrigger: cron.retrigger, immediate: cron.immediate }
}

/** The first scheduled time strictly after `from` (epoch ms); undefined when there is none. */
export const nextRunAfter = (expression: string, from: number): number | undefined => {
  try {
    return new Cron(expression, { paused: true }).nextRun(new Date(from))?.getTime()
  } catch {
    return undefined
  }
}

/** `next_run` of the API: the daemon's next scheduled time after `now`, or null. */
export const nextRunOf = (def: DaemonDefinition, now: number): string | null => {
  const s = scheduleOf(def)
  const next = s === undefined ? undefined : nextRunAfter(s.schedule, now)
  return next === undefined ? null : new Date(next).toISOString()
}

/** How the last run of a daemon ended: `never` when it never ran. */
export type LastRun = "success" | "fail" | "never"

/** What a firing does: start the daemon, restart it, or skip (with why, in words). */
export type Decision =
  | { readonly _tag: "start" }
  | { readonly _tag: "restart" }
  | { readonly _tag: "skip"; readonly why: string }

/**
 * The retrigger rule. `finish`: only when not running. `always`: restart a running daemon.
 * `success`: when not running and the last run did not fail (never run counts as allowed).
 * `fail`: when not running and the last run failed, or it never ran (its first run is fired, as
 * pitchfork does: else nothing would ever start such a job).
 */
export const decide = (retrigger: Retrigger, running: boolean, last: LastRun): Decision => {
  if (running)
    return retrigger === "always"
      ? { _tag: "restart" }
      : { _tag: "skip", why: "the previous run is still running" }
  if (retrigger === "success" && last === "fail") return { _tag: "skip", why: "the last run failed" }
  if (retrigger === "fail" && last === "success") return { _tag: "skip", why: "the last run succeeded" }
  return { _tag: "start" }
}

/** How far back a supervisor that takes a daemon on catches up a run it missed (docs/cron.md). */
export const CATCH_UP_WINDOW_MS = 24 * 60 * 60 * 1000
/** `immediate = true`: a scheduled time this long before the take-on fires at once. */
export const IMMEDIATE_WINDOW_MS = 10_000

/**
 * On take-on at `now`: the scheduled time to fire at once, if any. `handled` is the persisted
 * instant up to which the daemon's scheduled times were dealt with (fired or skipped): a time at
 * or before it never fires again. Without `handled`, only `immediate` looks back (10 s); with it,
 * a time missed since then fires once (looking back at most CATCH_UP_WINDOW_MS).
 */
export const missedRun = (s: CronSchedule, now: number, handled: number | undefined): number | undefined => {
  let from: number | undefined =
    handled === undefined ? undefined : Math.max(handled, now - CATCH_UP_WINDOW_MS)
  if (s.immediate) from = Math.min(from ?? Number.POSITIVE_INFINITY, now - IMMEDIATE_WINDOW_MS)
  if (from === undefined) return undefined
  if (handled !== undefined) from = Math.max(from, handled)
  const t = nextRunAfter(s.schedule, from)
  return t !== undefined && t <= now ? t : undefined
}
