import { Effect } from "effect"

/** One lock per daemon ID, created on first use: `withLock(id)(effect)` runs it holding the lock. */
export const makeLocks = () => {
  const locks = new Map<string, Effect.Semaphore>()
  return (id: string) => {
    let lock = locks.get(id)
    if (!lock) {
      lock = Effect.unsafeMakeSemaphore(1)
      locks.set(id, lock)
    }
    return lock.withPermits(1)
  }
}

export type WithLock = ReturnType<typeof makeLocks>
