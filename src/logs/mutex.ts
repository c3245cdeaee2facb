import { Effect } from "effect"
import type { LogStoreError } from "./errors.js"
import { asLogStoreError } from "./fsio.js"

/**
 * The lock of one daemon's log files, held by the follower's steps, a clear, retention and
 * `forget`. Most holders are one synchronous block of file calls (`sync`), which needs no more
 * than a flag: nothing else runs until it returns. `Effect.Semaphore#withPermits` cost ~40 µs
 * per use without the optimising compiler, several times per daemon start and once per line
 * batch a daemon prints; `sync` costs ~2 µs when the lock is free, which it nearly always is.
 */
export interface LogMutex {
  /** Runs `f` holding the lock (waiting while another holds it); what it throws is the failure. */
  readonly sync: <A>(f: () => A) => Effect.Effect<A, LogStoreError>
  /** Runs `effect` holding the lock: for holders that wait on I/O in between (rewrites). */
  readonly withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Waits until the lock is free, without taking it. */
  readonly awaitFree: Effect.Effect<void>
}

export const makeLogMutex = (): LogMutex => {
  let locked = false
  // Woken all at once when the lock is released; each tries again. (Handing the lock to one
  // waiter would leak it if that waiter were being interrupted at that moment.)
  let waiters: Array<() => void> = []
  const release = () => {
    locked = false
    if (waiters.length === 0) return
    const woken = waiters
    waiters = []
    for (const wake of woken) wake()
  }
  const untilReleased: Effect.Effect<void> = Effect.async<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiters.push(wake)
    return Effect.sync(() => {
      const i = waiters.indexOf(wake)
      if (i !== -1) waiters.splice(i, 1)
    })
  })
  const take: Effect.Effect<void> = Effect.suspend(() => {
    if (locked) return Effect.zipRight(untilReleased, take)
    locked = true
    return Effect.void
  })
  const sync = <A>(f: () => A): Effect.Effect<A, LogStoreError> =>
    Effect.suspend(() => {
      if (locked) return Effect.zipRight(untilReleased, sync(f))
      locked = true
      try {
        return Effect.succeed(f())
      } catch (error) {
        return Effect.fail(asLogStoreError(error))
      } finally {
        release()
      }
    })
  return {
    sync,
    withLock: (effect) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(take), restore(effect).pipe(Effect.ensuring(Effect.sync(release)))),
      ),
    awaitFree: Effect.suspend(() => (locked ? untilReleased : Effect.void)),
  }
}
