import { Effect, Stream } from "effect"

/**
 * "Some daemon changed": a counter that fibers can wait on. A `SubscriptionRef` did this before,
 * but each of its updates takes a semaphore and publishes to a PubSub, ~0.2 ms without the
 * optimising compiler, three times per daemon start: 25 ms of a start of 50 daemons. A bump
 * here is one increment, and wakes only the fibers waiting at that moment.
 */
export interface ChangeCounter {
  /** Counts a change and wakes every waiter. */
  readonly bump: Effect.Effect<void>
  /** The count now. */
  readonly current: Effect.Effect<number>
  /** Waits until the count is above `seen` (at once if it is already); the count then. */
  readonly after: (seen: number) => Effect.Effect<number>
  /**
   * The count now, then again after each change: changes made while the consumer was busy are
   * seen as one (each element means "look again", not "one change").
   */
  readonly changes: Stream.Stream<number>
}

export const makeChangeCounter = (): ChangeCounter => {
  let count = 0
  let waiters: Array<(count: number) => void> = []
  const after = (seen: number): Effect.Effect<number> =>
    Effect.suspend(() =>
      count > seen
        ? Effect.succeed(count)
        : Effect.async<number>((resume) => {
            const wake = (n: number) => resume(Effect.succeed(n))
            waiters.push(wake)
            // an interrupted waiter (a `wait` whose client left) leaves the list at once
            return Effect.sync(() => {
              const i = waiters.indexOf(wake)
              if (i !== -1) waiters.splice(i, 1)
            })
          }),
    )
  return {
    bump: Effect.sync(() => {
      count++
      if (waiters.length === 0) return
      const woken = waiters
      waiters = []
      for (const wake of woken) wake(count)
    }),
    current: Effect.sync(() => count),
    after,
    changes: Stream.suspend(() => {
      let seen: number | undefined
      return Stream.repeatEffect(
        Effect.suspend(() => (seen === undefined ? Effect.sync(() => count) : after(seen))).pipe(
          Effect.tap((n) => {
            seen = n
          }),
        ),
      )
    }),
  }
}
