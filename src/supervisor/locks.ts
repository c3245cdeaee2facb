import type { Effect } from "effect"
import { type Mutex, makeMutex } from "../concurrency/mutex.js"

/** One lock per daemon ID, created on first use: `withLock(id)(effect)` runs it holding the lock. */
export const makeLocks = () => {
  const locks = new Map<string, Mutex>()
  return (id: string) => {
    let lock = locks.get(id)
    if (!lock) {
      lock = makeMutex()
      locks.set(id, lock)
    }
    return lock.withLock as <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
}

export type WithLock = ReturnType<typeof makeLocks>
