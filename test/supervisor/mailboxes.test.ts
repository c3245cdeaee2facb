import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Queue, Ref, Scope, TestClock } from "effect"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"
import { DaemonCommand, type StartReply } from "../../src/supervisor/daemon/commands.js"
import { type Lifecycle, makeMailboxes } from "../../src/supervisor/mailboxes.js"
import {
  awaitSleepUntil,
  awaitSpawns,
  awaitStatus,
  definition,
  expectSleep,
  makeGate,
  makeHarness,
  startReady,
} from "./helpers.js"

/**
 * A scripted lifecycle: `Stop` is answered true, `Forget` retires it (after `beforeRetire`),
 * `Start` blocks it for good. Its fiber closes through `closing`. Every step is logged as
 * `<what> <id>#<launch>`, and every end with how the fiber exited.
 */
const makeScript = (options: { beforeRetire?: Effect.Effect<void>; closing?: Effect.Effect<void> } = {}) => {
  const log: Array<string> = []
  const launches = new Map<string, number>()
  const lifecycle: Lifecycle = (def, queue, _adopted, retire) =>
    Effect.suspend(() => {
      const id = def.id.qualified
      const n = (launches.get(id) ?? 0) + 1
      launches.set(id, n)
      const me = `${id}#${n}`
      log.push(`launch ${me}`)
      const loop = Effect.gen(function* () {
        for (;;) {
          const c = yield* Queue.take(queue)
          if (c._tag === "Stop") {
            log.push(`stop ${me}`)
            yield* Deferred.succeed(c.reply, true)
          } else if (c._tag === "Forget") {
            yield* options.beforeRetire ?? Effect.void
            yield* Deferred.succeed(c.reply, true)
            if (yield* retire) {
              log.push(`retired ${me}`)
              return
            }
          } else if (c._tag === "Start") {
            log.push(`blocked ${me}`)
            yield* Effect.never
          }
        }
      })
      return loop.pipe(
        Effect.onExit((exit) =>
          (options.closing ?? Effect.void).pipe(
            Effect.zipRight(
              Effect.sync(() => log.push(`end ${me}${Exit.isInterrupted(exit) ? " (interrupted)" : ""}`)),
            ),
          ),
        ),
      )
    })
  return { log, launches, lifecycle }
}

const stopCommand = Effect.map(Deferred.make<boolean>(), (reply) => ({
  reply,
  command: DaemonCommand.Stop({ reason: "api", reply }),
}))
const startCommand = (def: DaemonDefinition) =>
  Effect.gen(function* () {
    const reply: StartReply = {
      spawned: yield* Deferred.make<boolean>(),
      outcome: yield* Deferred.make<StartOutcome>(),
    }
    return { reply, command: DaemonCommand.Start({ def, mode: "start", reason: "api", reply }) }
  })

/** Waits (bounded) until `f` is suspended: blocked on something only another fiber can do. */
const awaitSuspended = <A, E>(f: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* Fiber.status(f))._tag === "Suspended") return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage("the fiber never suspended")
  })

/** Waits (bounded, yielding between checks) until `done` holds. */
const awaitThat = (what: string, done: () => boolean) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if (done()) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`never: ${what}`)
  })

const WEB = "app/web"
const web = definition("web")

describe("the keyed mailboxes", () => {
  it.scoped("a command sent while a retired lifecycle still closes goes to a fresh one, launched after", () =>
    Effect.gen(function* () {
      const closing = yield* makeGate
      const script = makeScript({ closing: closing.wait })
      const boxes = yield* makeMailboxes(script.lifecycle)
      const forget = yield* Deferred.make<boolean>()
      yield* boxes.send(web, DaemonCommand.Forget({ reply: forget }))
      expect(yield* Deferred.await(forget)).toBe(true)
      // retired: its mailbox is closed, its fiber still closes
      yield* awaitThat("retired", () => script.log.includes(`retired ${WEB}#1`))
      expect(boxes.has(WEB)).toBe(false)
      expect(yield* boxes.size).toBe(1)

      const stop = yield* stopCommand
      const sending = yield* Effect.fork(boxes.send(web, stop.command))
      yield* awaitSuspended(sending)
      expect(script.log).toEqual([`launch ${WEB}#1`, `retired ${WEB}#1`])
      expect(yield* Deferred.isDone(stop.reply)).toBe(false)

      yield* closing.open
      yield* Fiber.join(sending)
      expect(yield* Deferred.await(stop.reply)).toBe(true)
      expect(script.log).toEqual([
        `launch ${WEB}#1`,
        `retired ${WEB}#1`,
        `end ${WEB}#1`,
        `launch ${WEB}#2`,
        `stop ${WEB}#2`,
      ])
      // the ended fiber left the map; the fresh one is in it
      expect(yield* boxes.size).toBe(1)
      expect(boxes.has(WEB)).toBe(true)
    }),
  )

  it.scoped("a command queued while the lifecycle decides to retire is taken by it, not lost", () =>
    Effect.gen(function* () {
      const atRetire = yield* Deferred.make<void>()
      const gate = yield* makeGate
      const script = makeScript({
        beforeRetire: Deferred.succeed(atRetire, undefined).pipe(Effect.zipRight(gate.wait)),
      })
      const boxes = yield* makeMailboxes(script.lifecycle)
      const forget = yield* Deferred.make<boolean>()
      yield* boxes.send(web, DaemonCommand.Forget({ reply: forget }))
      yield* Deferred.await(atRetire)
      const stop = yield* stopCommand
      yield* boxes.send(web, stop.command)
      yield* gate.open
      expect(yield* Deferred.await(stop.reply)).toBe(true)
      expect(script.log).toEqual([`launch ${WEB}#1`, `stop ${WEB}#1`])
      expect(boxes.has(WEB)).toBe(true)
    }),
  )

  it.effect("closing the scope interrupts every lifecycle, leaves no fiber, answers what was queued", () =>
    Effect.gen(function* () {
      const script = makeScript()
      const scope = yield* Scope.make()
      const boxes = yield* makeMailboxes(script.lifecycle).pipe(Scope.extend(scope))
      const defs = Array.from({ length: 20 }, (_, i) => definition(`d${i}`))
      for (const def of defs) {
        const stop = yield* stopCommand
        yield* boxes.send(def, stop.command)
        expect(yield* Deferred.await(stop.reply)).toBe(true)
      }
      // one lifecycle blocked in a start, with a stop and a start queued behind it
      const d0 = defs[0]!
      yield* boxes.send(d0, (yield* startCommand(d0)).command)
      const queued = yield* stopCommand
      yield* boxes.send(d0, queued.command)
      const queuedStart = yield* startCommand(d0)
      yield* boxes.send(d0, queuedStart.command)
      yield* awaitThat("blocked", () => script.log.includes("blocked app/d0#1"))
      expect(yield* boxes.size).toBe(20)

      yield* Scope.close(scope, Exit.void)
      const ends = script.log.filter((l) => l.startsWith("end "))
      expect(ends.sort()).toEqual(defs.map((d) => `end ${d.id.qualified}#1 (interrupted)`).sort())
      expect(yield* boxes.size).toBe(0)
      expect(yield* Deferred.await(queued.reply)).toBe(false)
      // a start no lifecycle took hears that it was interrupted
      expect(yield* Deferred.await(queuedStart.reply.spawned)).toBe(false)
      expect(yield* Deferred.await(queuedStart.reply.outcome)).toEqual({ _tag: "Interrupted", id: "app/d0" })
    }),
  )

  it.scoped("many daemons sent commands at once, some while their retired lifecycle closes: one each", () =>
    Effect.gen(function* () {
      const closing = yield* makeGate
      const script = makeScript({ closing: closing.wait })
      const boxes = yield* makeMailboxes(script.lifecycle)
      const fresh = Array.from({ length: 30 }, (_, i) => definition(`fresh${i}`))
      const closed = Array.from({ length: 30 }, (_, i) => definition(`closed${i}`))
      for (const def of closed) {
        const forget = yield* Deferred.make<boolean>()
        yield* boxes.send(def, DaemonCommand.Forget({ reply: forget }))
        yield* Deferred.await(forget)
      }
      yield* awaitThat(
        "all retired",
        () => script.log.filter((l) => l.startsWith("retired")).length === closed.length,
      )

      const sends = [...fresh, ...closed, ...fresh, ...closed, ...fresh, ...closed]
      const stops = yield* Effect.forEach(sends, () => stopCommand)
      const sending = yield* Effect.fork(
        Effect.forEach(sends, (def, i) => boxes.send(def, stops[i]!.command), {
          concurrency: "unbounded",
          discard: true,
        }),
      )
      yield* Effect.forEach(stops.slice(0, fresh.length), (s) => Deferred.await(s.reply))
      yield* closing.open
      yield* Fiber.join(sending)
      for (const s of stops) expect(yield* Deferred.await(s.reply)).toBe(true)
      for (const def of fresh) expect(script.launches.get(def.id.qualified)).toBe(1)
      // the first lifecycle, then exactly one fresh one
      for (const def of closed) expect(script.launches.get(def.id.qualified)).toBe(2)
      expect(yield* boxes.size).toBe(fresh.length + closed.length)
      expect(script.log.filter((l) => l.startsWith("stop "))).toHaveLength(sends.length)
    }),
  )
})

/** A full collection, made callable for this test file. */
setFlagsFromString("--expose-gc")
const collect = runInNewContext("gc") as () => void

describe("what a lifecycle's mailbox holds", () => {
  it.scoped("the command that launched a lifecycle is not held once the lifecycle has taken it", () =>
    Effect.gen(function* () {
      // takes one command, answers it, then waits: nothing of its own holds the command after
      const lifecycle: Lifecycle = (_def, queue) =>
        Queue.take(queue).pipe(
          Effect.flatMap((c) => (c._tag === "Stop" ? Deferred.succeed(c.reply, true) : Effect.void)),
          Effect.zipRight(Effect.never),
        )
      const boxes = yield* makeMailboxes(lifecycle)
      // the command and its reply are reachable from here only through the WeakRef
      const sent = yield* Effect.gen(function* () {
        const stop = yield* stopCommand
        yield* boxes.send(web, stop.command)
        expect(yield* Deferred.await(stop.reply)).toBe(true)
        return new WeakRef(stop.reply)
      })
      expect(boxes.has(WEB)).toBe(true)
      // a WeakRef's target is kept until the task that read it has ended
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 0)))
      collect()
      expect(sent.deref()).toBeUndefined()
    }),
  )
})

describe("the mailboxes under the real lifecycle (fake processes, TestClock)", () => {
  it.scoped("daemons started concurrently, each twice: one lifecycle and one process each", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const defs = Array.from({ length: 25 }, (_, i) => definition(`d${i}`))
      const starting = yield* expectSleep(
        3000,
        Effect.fork(
          Effect.forEach([...defs, ...defs], (def) => h.sup.start(def), { concurrency: "unbounded" }),
        ),
      )
      // every first start spawned before the clock moves
      yield* awaitSpawns(h.fake, defs.length)
      yield* TestClock.adjust(3000)
      const outcomes = yield* Fiber.join(starting)
      // per daemon: one start spawned it, the other found it running (the same process)
      for (const def of defs) {
        const mine = outcomes.filter((o) => o.id === def.id.qualified)
        expect(mine.map((o) => o._tag).sort()).toEqual(["AlreadyRunning", "Ready"])
        expect(new Set(mine.map((o) => ("pid" in o ? o.pid : undefined))).size).toBe(1)
      }
      const spawned = (yield* Ref.get(h.fake.spawned)).map((r) => r.id)
      expect(spawned.sort()).toEqual(defs.map((d) => d.id.qualified).sort())
      for (const def of defs) expect(yield* h.maxLive(def.id.qualified)).toBe(1)
    }),
  )

  it.scoped("a start sent behind a clean of the daemon is handled once the daemon is forgotten", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.fake.ignoreNext("SIGTERM")
      yield* startReady(h.sup, web)
      // the lifecycle is busy stopping a process that ignores SIGTERM (SIGKILL after 5 s)
      const stopping = yield* expectSleep(5000, Effect.fork(h.sup.stop(WEB)))
      yield* awaitStatus(h.sup, WEB, "stopping")
      const cleaning = yield* Effect.fork(h.sup.clean([WEB]))
      yield* awaitSuspended(cleaning)
      const restarting = yield* Effect.fork(h.sup.start(web))
      yield* awaitSuspended(restarting)
      yield* TestClock.adjust(5000)
      expect(yield* Fiber.join(stopping)).toBe(true)
      // forgotten first, then started again by the same lifecycle or a fresh one
      expect(yield* Fiber.join(cleaning)).toEqual([WEB])
      yield* awaitSpawns(h.fake, 2)
      yield* awaitSleepUntil((yield* TestClock.currentTimeMillis) + 3000)
      yield* TestClock.adjust(3000)
      const outcome = yield* Fiber.join(restarting)
      const now = yield* h.sup.get(WEB)
      expect(now.status.type).toBe("running")
      expect(outcome).toEqual({ _tag: "Ready", id: WEB, pid: now.pid })
    }),
  )
})
