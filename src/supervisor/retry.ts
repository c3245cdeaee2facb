import { Duration, Effect, Schedule, ScheduleDecision, ScheduleIntervals } from "effect"

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

/**
 * Where a daemon is in its retry schedule: the schedule and its state. Stepped by `nextRetry`
 * (what `Schedule.driver` does, without its sleep): the delay is known before waiting it, so
 * `list` can say when the retry is due.
 */
export interface RetryBackoff {
  readonly schedule: Schedule.Schedule<void>
  // Schedule's own state type is `any`: kept opaque here.
  readonly state: unknown
}

// A schedule is an immutable description (its state travels in `RetryBackoff`): one per limit,
// shared by the daemons, instead of eight Schedule values held by each daemon's lifecycle
// (0.1 MiB of heap with 50 daemons, docs/benchmarks.md).
const schedules = new Map<number, Schedule.Schedule<void>>()

/** The backoff of a sequence allowed `limit` retries, before its first failure. */
export const retryBackoff = (limit: number): RetryBackoff => {
  let schedule = schedules.get(limit)
  if (schedule === undefined) {
    schedule = retrySchedule(limit)
    schedules.set(limit, schedule)
  }
  return { schedule, state: schedule.initial }
}

/** The next retry at `now`: its delay and the backoff after it; undefined when no retry is left. */
export const nextRetry = (
  backoff: RetryBackoff,
  now: number,
): Effect.Effect<{ readonly delayMillis: number; readonly next: RetryBackoff } | undefined> =>
  Effect.map(backoff.schedule.step(now, undefined, backoff.state), ([state, , decision]) =>
    ScheduleDecision.isDone(decision)
      ? undefined
      : {
          delayMillis: Math.max(0, ScheduleIntervals.start(decision.intervals) - now),
          next: { schedule: backoff.schedule, state },
        },
  )
