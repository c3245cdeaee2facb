import { Cause, Deferred, Effect, Exit, Fiber, Runtime } from "effect"

/**
 * Runs `f` for every item at once, each in a fiber of its own, and waits for all of them:
 * `Effect.forEach` with unbounded concurrency for effects that do not fail, at ~20 µs per item
 * where that costs ~70 µs without the optimising compiler (a start of 50 daemons forks one per
 * daemon). Each fiber has the caller's context and fiber refs. Interrupting the wait interrupts
 * them all; a defect in one is the whole run's, once every fiber has ended.
 */
export const forEachAtOnce = <A>(
  items: Iterable<A>,
  f: (item: A) => Effect.Effect<void>,
): Effect.Effect<void> =>
  // uninterruptible until the wait that interrupts them is in place: no fiber is left running
  Effect.uninterruptibleMask((restore) =>
    Effect.withFiberRuntime<void>((parent) => {
      const fork = Runtime.runFork(
        Runtime.make({
          context: parent.currentContext,
          fiberRefs: parent.getFiberRefs(),
          runtimeFlags: Runtime.defaultRuntime.runtimeFlags,
        }),
      )
      const fibers: Array<Fiber.RuntimeFiber<void>> = []
      const done = Deferred.unsafeMake<void>(parent.id())
      let left = 1 // this loop's own count, released after it: a fiber may end before the next starts
      let defect: Cause.Cause<never> | undefined
      const ended = (exit: Exit.Exit<void>) => {
        if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) defect ??= exit.cause
        if (--left === 0) Deferred.unsafeDone(done, Exit.void)
      }
      for (const item of items) {
        left++
        const fiber = fork(f(item))
        fibers.push(fiber)
        fiber.addObserver(ended)
      }
      ended(Exit.void)
      return restore(Deferred.await(done)).pipe(
        Effect.onInterrupt(() => Fiber.interruptAll(fibers)),
        Effect.zipRight(
          Effect.suspend(() => (defect === undefined ? Effect.void : Effect.failCause(defect))),
        ),
      )
    }),
  )
