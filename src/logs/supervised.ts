import { Cause, Clock, Effect } from "effect"
import type { DaemonLog } from "./daemonLog.js"
import {
  closeFollower,
  type FollowerConfig,
  type FollowerHandles,
  followLoop,
  openFollower,
  type RetentionState,
} from "./follower.js"

const openNow = (d: DaemonLog) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => d.mutex.sync(() => openFollower(d, now)))

/**
 * The follower fiber of a daemon, from the files `follow` opened: forked uninterruptible (so that
 * its files are closed however it ends), it indexes interruptibly and, when it fails, says so and
 * starts again from the index 1 s later.
 */
export const supervisedFollower = (
  d: DaemonLog,
  first: FollowerHandles,
  cfg: FollowerConfig,
  retention: RetentionState,
): Effect.Effect<never> => {
  let opened: FollowerHandles | undefined = first
  const round = Effect.suspend(() => {
    const h = opened
    opened = undefined
    return h === undefined ? openNow(d) : Effect.succeed(h)
  }).pipe(
    Effect.flatMap((h) =>
      Effect.interruptible(followLoop(d, h, cfg, retention)).pipe(
        Effect.ensuring(d.mutex.sync(() => closeFollower(d, h)).pipe(Effect.ignore)),
      ),
    ),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : // a disk that stays full: said once, then counted (supervisor supervisor status)
          ((d.health.logProblemOf(d.key)?.failed_writes ?? 0) > 1
            ? Effect.void
            : Effect.logWarning(`log follower of ${d.id} failed; restarting it in 1s`, cause)
          ).pipe(Effect.zipRight(Effect.interruptible(Effect.sleep("1 second")))),
    ),
  )
  return Effect.forever(round)
}
