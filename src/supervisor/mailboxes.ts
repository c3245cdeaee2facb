import { Cause, Chunk, Effect, Exit, Fiber, FiberMap, Option, Queue, type Scope } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ProcessHandle } from "../process/ProcessService.js"
import type { DaemonCommand } from "./daemon/commands.js"
import { answerUnhandled } from "./daemon/lifecycle.js"

/** A process a previous supervisor started, and the retries its daemon had used. */
export interface Adopted {
  readonly handle: ProcessHandle
  readonly attempt: number
}

/**
 * What runs one daemon's life: it takes the commands of `queue` until it ends. `retire` asks to
 * end it (a forgotten daemon): true, with its mailbox closed, when nothing more was queued.
 */
export type Lifecycle = (
  def: DaemonDefinition,
  queue: Queue.Queue<DaemonCommand>,
  adopted: Option.Option<Adopted>,
  retire: Effect.Effect<boolean>,
) => Effect.Effect<void>

export interface Mailboxes {
  /** Sends a command to the daemon's lifecycle, launching one with `def` when it has none. */
  readonly send: (def: DaemonDefinition, command: DaemonCommand) => Effect.Effect<void>
  /** Launches the lifecycle of a daemon around a process a previous supervisor left running. */
  readonly adopt: (def: DaemonDefinition, adopted: Adopted) => Effect.Effect<void>
  /** Whether a lifecycle reads the daemon's mailbox now. */
  readonly has: (id: string) => boolean
  /** How many lifecycle fibers exist (one closing after it retired included). */
  readonly size: Effect.Effect<number>
  /** Interrupts every lifecycle and waits for each to end (their processes are left alone). */
  readonly interruptAll: Effect.Effect<void>
}

/**
 * The keyed mailboxes: one lifecycle fiber per daemon in a `FiberMap` keyed by qualified ID,
 * each reading its own queue. A fiber that ends leaves the map by itself; closing the scope
 * interrupts them all. A command for a daemon that has a mailbox is queued in one synchronous
 * step. Launching holds a lock and first waits for the daemon's previous fiber, if it still
 * closes: one lifecycle per daemon at a time. A lifecycle retires only with its queue empty, in
 * one synchronous step too, so a command sent meanwhile is either taken by it or by a fresh one.
 */
export const makeMailboxes = (lifecycle: Lifecycle): Effect.Effect<Mailboxes, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string, void, never>()
    const queues = new Map<string, Queue.Queue<DaemonCommand>>()
    const lock = yield* Effect.makeSemaphore(1)

    /**
     * Starts a lifecycle with `first` queued (call holding the lock, with no fiber for `def`).
     * `first` is queued here, outside `run`, so that nothing living as long as the fiber holds it
     * (a start's replies and what its callbacks hold).
     */
    const launch = (def: DaemonDefinition, adopted: Option.Option<Adopted>, first?: DaemonCommand) =>
      Effect.flatMap(Queue.unbounded<DaemonCommand>(), (queue) => {
        if (first !== undefined) queue.unsafeOffer(first)
        return run(def, adopted, queue)
      })

    /** Forks the lifecycle of `def` reading `queue` into the map. */
    const run = (def: DaemonDefinition, adopted: Option.Option<Adopted>, queue: Queue.Queue<DaemonCommand>) =>
      Effect.suspend(() => {
        const id = def.id.qualified
        const retire = Effect.sync(() => {
          if (Option.getOrElse(queue.unsafeSize(), () => 0) > 0) return false
          if (queues.get(id) === queue) queues.delete(id)
          return true
        })
        // However it ends (interrupted at shutdown, or a defect), what was still queued is answered.
        const ended = Effect.suspend(() => {
          if (queues.get(id) === queue) queues.delete(id)
          return Effect.map(Queue.takeAll(queue), (left) =>
            Chunk.forEach(left, (c) => answerUnhandled(c, id)),
          )
        })
        queues.set(id, queue)
        return Effect.asVoid(
          FiberMap.run(
            fibers,
            id,
            // one `onExit` for both: it stays on the fiber's stack for the daemon's life
            lifecycle(def, queue, adopted, retire).pipe(
              Effect.onExit((exit) =>
                Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
                  ? Effect.zipRight(Effect.logError(`the lifecycle of ${id} failed`, exit.cause), ended)
                  : ended,
              ),
            ),
          ),
        ).pipe(
          // the map is closed (shut down): no lifecycle will read this queue
          Effect.onInterrupt(() => ended),
        )
      })

    const send = (def: DaemonDefinition, command: DaemonCommand): Effect.Effect<void> =>
      Effect.suspend(() => {
        const id = def.id.qualified
        if (queues.get(id)?.unsafeOffer(command)) return Effect.void
        return lock
          .withPermits(1)(
            Effect.suspend((): Effect.Effect<Option.Option<Fiber.RuntimeFiber<void>>> => {
              // launched by another sender while this one waited for the lock
              if (queues.get(id)?.unsafeOffer(command)) return Effect.succeed(Option.none())
              // a retired lifecycle still closing: the fresh one starts once it has ended
              const closing = FiberMap.unsafeGet(fibers, id)
              if (Option.isSome(closing)) return Effect.succeed(closing)
              return Effect.as(launch(def, Option.none(), command), Option.none())
            }),
          )
          .pipe(
            // waited for outside the lock: what the closing fiber does may send commands too
            Effect.flatMap(
              Option.match({
                onNone: () => Effect.void,
                onSome: (fiber) => Effect.zipRight(Fiber.await(fiber), send(def, command)),
              }),
            ),
          )
      })

    return {
      send,
      adopt: (def, adopted) => Effect.asVoid(lock.withPermits(1)(launch(def, Option.some(adopted)))),
      has: (id) => queues.has(id),
      size: FiberMap.size(fibers),
      interruptAll: FiberMap.clear(fibers),
    }
  })
