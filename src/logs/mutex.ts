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
  const withLock = lock.withPermits(1)
  return {
    sync: (f) => withLock(Effect.try({ try: f, catch: asLogStoreError })),
    withLock,
    awaitFree: withLock(Effect.void),
  }
}
