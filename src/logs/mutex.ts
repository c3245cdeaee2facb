import type { Effect } from "effect"
import { makeMutex } from "../concurrency/mutex.js"
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
  const mutex = makeMutex()
  return {
    sync: (f) => mutex.sync(f, asLogStoreError),
    withLock: mutex.withLock,
    awaitFree: mutex.awaitFree,
  }
}
