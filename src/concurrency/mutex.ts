import { Effect } from "effect"

/**
 * A lock for fibers: a flag plus the fibers waiting for it. `Effect.Semaphore#withPermits` costs
 * ~40 µs per use without the optimising compiler (the supervisor runs without it), and the start
 * of a daemon took several (its own lock, its log's); `sync` costs ~2 µs when the lock is free,
 * which it nearly always is, and `withLock` a few times that.
 */
export interface Mutex {
  /** Runs `effect` holding the lock (waiting while another holds it). */
  readonly withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs the synchronous `f` holding the lock: nothing else runs until it returns, so a free lock
   * needs no release bookkeeping. What it throws is the failure, as `onThrow` makes it.
   */
  readonly sync: <A, E>(f: () => A, onThrow: (thrown: unknown) => E) => Effect.Effect<A, E>
  /** Waits until the lock is free, without taking it. */
  readonly awaitFree: Effect.Effect<void>
}

export const makeMutex = (): Mutex => {
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
  const sync = <A, E>(f: () => A, onThrow: (thrown: unknown) => E): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      if (locked) return Effect.zipRight(untilReleased, sync(f, onThrow))
      locked = true
      try {
        return Effect.succeed(f())
      } catch (error) {
        return Effect.fail(onThrow(error))
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
