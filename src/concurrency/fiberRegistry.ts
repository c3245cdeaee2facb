import { Effect, Fiber, Runtime, type Scope } from "effect"

/**
 * Fibers by key, as `FiberMap` keeps them, for one fiber per daemon: `FiberMap.run` cost ~80 µs
 * without the optimising compiler (hashing its keys, a `Runtime` per run), a quarter of a
 * daemon's start. The same semantics for what the supervisor uses: a fiber forked with its
 * caller's context and fiber refs but interruptible (not with the caller's flags), a previous
 * fiber of the key interrupted, the key freed when its fiber ends, every fiber interrupted when
 * the scope closes.
 */
export interface FiberRegistry<K> {
  readonly run: <A, E>(key: K, effect: Effect.Effect<A, E>) => Effect.Effect<Fiber.RuntimeFiber<A, E>>
  readonly has: (key: K) => Effect.Effect<boolean>
  readonly get: (key: K) => Effect.Effect<Fiber.RuntimeFiber<unknown, unknown> | undefined>
  /** Interrupts the key's fiber, if any, and waits until it has ended. */
  readonly remove: (key: K) => Effect.Effect<void>
  /** Interrupts every fiber and waits until they have ended. */
  readonly clear: Effect.Effect<void>
}

export const makeFiberRegistry = <K>(): Effect.Effect<FiberRegistry<K>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = new Map<K, Fiber.RuntimeFiber<unknown, unknown>>()
    let closed = false
    const clear = Effect.suspend(() => Fiber.interruptAll([...fibers.values()]))
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        return clear
      }),
    )
    const registry: FiberRegistry<K> = {
      run: <A, E>(key: K, effect: Effect.Effect<A, E>) =>
        Effect.withFiberRuntime<Fiber.RuntimeFiber<A, E>>((parent) => {
          if (closed) return Effect.interrupt
          const fiber = Runtime.runFork(
            Runtime.make({
              context: parent.currentContext,
              fiberRefs: parent.getFiberRefs(),
              runtimeFlags: Runtime.defaultRuntime.runtimeFlags,
            }),
          )(effect)
          const previous = fibers.get(key)
          fibers.set(key, fiber)
          fiber.addObserver(() => {
            if (fibers.get(key) === fiber) fibers.delete(key)
          })
          previous?.unsafeInterruptAsFork(parent.id())
          return Effect.succeed(fiber)
        }),
      has: (key) => Effect.sync(() => fibers.has(key)),
      get: (key) => Effect.sync(() => fibers.get(key)),
      remove: (key) =>
        Effect.suspend(() => {
          const fiber = fibers.get(key)
          return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
        }),
      clear,
    }
    return registry
  })
