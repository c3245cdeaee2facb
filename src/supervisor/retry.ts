import { Duration, Schedule } from "effect"

/** The first retry's delay; each next one doubles, up to the cap. */
export const BACKOFF_BASE = Duration.seconds(1)
export const BACKOFF_CAP = Duration.seconds(60)

/**
 * When a daemon that failed is retried: 1 s, 2 s, 4 s … capped at 60 s, at most `limit` times
 * (`retry = N`; `Infinity` for `retry = true`).
 */
export const retrySchedule = (limit: number): Schedule.Schedule<void> => {
  const backoff = Schedule.exponential(BACKOFF_BASE).pipe(
    Schedule.union(Schedule.spaced(BACKOFF_CAP)),
    Schedule.asVoid,
  )
  return Number.isFinite(limit)
    ? backoff.pipe(Schedule.intersect(Schedule.recurs(limit)), Schedule.asVoid)
    : backoff
}
