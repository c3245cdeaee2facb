import { Effect } from "effect"
import type { LogStoreError } from "./errors.js"
import { asLogStoreError } from "./fsio.js"

/**
 * The lock of one daemon's log files, held by the follower's steps, a clear, retention and
 * `forget`. Most holders are one synchronous block of file calls (`sync`).
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
  // made where the log of a daemon is first met, outside any effect
  const lock = Effect.unsafeMakeSemaphore(1)
  const locked = lock.withPermits(1)
  // How many holders are inside `withLock` now. A synchronous block cannot interleave with
  // anything: while none is inside, `sync` runs its block at once instead of taking the
  // semaphore (some 30 fiber operations each, twice for every daemon stopped).
  let inside = 0
  // the count and its release are one step: an interruption between them cannot leave it raised
  const withLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    locked(
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          inside++
          return Effect.ensuring(
            restore(effect),
            Effect.sync(() => {
              inside--
            }),
          )
        }),
      ),
    )
  return {
    sync: (f) => {
      const block = Effect.try({ try: f, catch: asLogStoreError })
      return Effect.suspend(() => (inside === 0 ? block : locked(block)))
    },
    withLock,
    awaitFree: withLock(Effect.void),
  }
}
