import { Clock, Context, Duration, Effect, Either, FiberMap, Layer, type Scope, Stream } from "effect"
import { Control } from "../../control/Control.js"
import { startOne } from "../../control/startOne.js"
import {
  type CronSchedule,
  decide,
  type LastRun,
  missedRun,
  nextRunAfter,
  sameSchedule,
  scheduleOf,
} from "../../domain/cronSchedule.js"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { compareIds } from "../../domain/idOrder.js"
import { LogStore } from "../../logs/LogStore.js"
import { ProjectRegistry } from "../../registry/ProjectRegistry.js"
import { allDefinitions } from "../../registry/snapshot.js"
import { StateStore } from "../../state/StateStore.js"
import { isActive } from "../../supervisor/DaemonState.js"
import { Supervisor, type SupervisorShape } from "../../supervisor/Supervisor.js"

// Starts daemons on their `cron` schedule (docs/cron.md): one fiber per schedule sleeps until the
// next scheduled time (croner computes it), then applies the retrigger rule.

export interface CronShape {
  /** The schedules followed now. */
  readonly scheduled: Effect.Effect<ReadonlyArray<CronSchedule>>
}

export class CronService extends Context.Tag("supervisor/Cron")<CronService, CronShape>() {}

/** What a daemon looks like to a firing. */
export interface CronView {
  readonly running: boolean
  readonly enabled: boolean
  readonly last: LastRun
}

export interface CronDeps {
  /** Starts the daemon (`restart`: stops the running instance first), reason `cron`. */
  readonly fire: (id: string, restart: boolean) => Effect.Effect<void>
  readonly view: (id: string) => Effect.Effect<CronView>
  /** Writes a `[supervisor]` line into the daemon's log. */
  readonly note: (id: string, text: string) => Effect.Effect<void>
  /** The persisted instant up to which the daemon's scheduled times were dealt with. */
  readonly handled: (id: string) => Effect.Effect<number | undefined>
  readonly setHandled: (id: string, at: number) => Effect.Effect<void>
}

const sameSchedules = (a: ReadonlyArray<CronSchedule>, b: ReadonlyArray<CronSchedule>) =>
  a.length === b.length && a.every((s, i) => sameSchedule(s, b[i] as CronSchedule))

/** The schedules of `definitions`, sorted by ID, without repeats. */
export const schedulesOf = (definitions: Iterable<DaemonDefinition>): ReadonlyArray<CronSchedule> => {
  const byId = new Map<string, CronSchedule>()
  for (const d of definitions) {
    const s = scheduleOf(d)
    if (s !== undefined) byId.set(s.id, s)
  }
  return [...byId.values()].sort((a, b) => compareIds(a.id, b.id))
}

/** The view of a daemon from the supervisor: running, enabled, how its last run ended. */
export const supervisorView =
  (sup: SupervisorShape) =>
  (id: string): Effect.Effect<CronView> =>
    Effect.gen(function* () {
      const enabled = !(yield* sup.isDisabled(id))
      const r = yield* Effect.either(sup.get(id))
      if (Either.isLeft(r)) return { running: false, enabled, last: "never" as const }
      const type = r.right.status.type
      const last: LastRun =
        type === "errored" || type === "failed" ? "fail" : type === "stopped" ? "success" : "never"
      return { running: isActive(r.right), enabled, last }
    })

/**
 * The longest single sleep: a timer longer than ~24.8 days never fires in Node, and a shorter one
 * re-reads the wall clock now and then (a machine that was suspended, a clock that was set).
 */
export const MAX_SLEEP_MS = 24 * 60 * 60 * 1000

/** Sleeps until the wall clock reads `at` (epoch ms). */
const sleepUntil = (at: number) =>
  Effect.gen(function* () {
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      if (now >= at) return
      yield* Effect.sleep(Duration.millis(Math.min(at - now, MAX_SLEEP_MS)))
    }
  })

/** One schedule's life: a missed run on take-on (`catchUp`), then each scheduled time. */
const follow = (s: CronSchedule, deps: CronDeps, catchUp: boolean) =>
  Effect.gen(function* () {
    const takenOn = yield* Clock.currentTimeMillis
    const handled = yield* deps.handled(s.id)
    // whether the last firing was skipped and said so: a run of skips is noted once
    let skipping = false
    const trigger = (at: number, missed: boolean) =>
      Effect.gen(function* () {
        const view = yield* deps.view(s.id)
        const decision = view.enabled ? decide(s.retrigger, view.running, view.last) : undefined
        if (decision === undefined || decision._tag === "skip") {
          if (!skipping) {
            const why =
              decision === undefined ? "it is disabled" : `${decision.why} (retrigger = "${s.retrigger}")`
            yield* deps.note(s.id, `cron: skipped (schedule "${s.schedule}"): ${why}`)
          }
          skipping = true
        } else {
          skipping = false
          const what = decision._tag === "restart" ? "restarting" : "starting"
          const when = missed ? `, missed run of ${new Date(at).toISOString()}` : ""
          yield* deps.note(s.id, `cron: ${what} (schedule "${s.schedule}"${when})`)
          // in the background: a slow start does not delay the next scheduled time
          yield* Effect.fork(deps.fire(s.id, decision._tag === "restart"))
        }
      })
    const missed = catchUp ? missedRun(s, takenOn, handled) : undefined
    if (missed !== undefined) yield* trigger(missed, true)
    yield* deps.setHandled(s.id, takenOn)
    let from = takenOn
    while (true) {
      const next = nextRunAfter(s.schedule, from)
      if (next === undefined) return yield* Effect.never
      yield* sleepUntil(next)
      yield* trigger(next, false)
      yield* deps.setHandled(s.id, next)
      from = next
    }
  })

/**
 * Follows `schedules` for as long as the scope lives: a new schedule starts a timer fiber, a
 * changed one restarts it (without catching up), a removed one ends it.
 */
export const makeCron = (
  schedules: Stream.Stream<ReadonlyArray<CronSchedule>>,
  deps: CronDeps,
): Effect.Effect<CronShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string>()
    const current = new Map<string, CronSchedule>()
    const apply = (next: ReadonlyArray<CronSchedule>) =>
      Effect.gen(function* () {
        for (const id of [...current.keys()]) {
          if (next.some((s) => s.id === id)) continue
          current.delete(id)
          yield* FiberMap.remove(fibers, id)
        }
        for (const s of next) {
          const was = current.get(s.id)
          if (was !== undefined && sameSchedule(was, s)) continue
          current.set(s.id, s)
          yield* FiberMap.run(fibers, s.id, follow(s, deps, was === undefined))
        }
      })
    yield* Effect.forkScoped(Stream.runForEach(Stream.changesWith(schedules, sameSchedules), apply))
    return { scheduled: Effect.sync(() => [...current.values()]) }
  })

/**
 * The schedules of the known projects' daemons, as their files say now: a daemon added, edited or
 * removed in a file gets, changes or loses its schedule without a restart.
 */
export const configuredSchedules = (
  definitions: Stream.Stream<ReadonlyArray<DaemonDefinition>>,
): Stream.Stream<ReadonlyArray<CronSchedule>> =>
  definitions.pipe(Stream.map(schedulesOf), Stream.changesWith(sameSchedules))

/** The cron service of the supervisor process. */
export const CronLive = Layer.scoped(
  CronService,
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const control = yield* Control
    const registry = yield* ProjectRegistry
    const logs = yield* LogStore
    const state = yield* StateStore
    const definitions = registry.snapshot.changes.pipe(Stream.map(allDefinitions))
    return yield* makeCron(configuredSchedules(definitions), {
      fire: (id, restart) =>
        startOne(control, id, { force: restart, reason: "cron" }).pipe(
          Effect.catchAll((e) => logs.note(id, `cron: cannot start: ${e.message}`)),
          Effect.catchAll((e) => Effect.logWarning(`cron: cannot start ${id}: ${e.message}`)),
          Effect.asVoid,
        ),
      view: supervisorView(sup),
      note: (id, text) =>
        logs
          .note(id, text)
          .pipe(Effect.catchAll((e) => Effect.logWarning(`cannot write to the log of ${id}: ${e.message}`))),
      handled: (id) => Effect.map(state.get, (s) => s.cron[id]),
      setHandled: (id, at) => Effect.asVoid(state.record((s) => ({ ...s, cron: { ...s.cron, [id]: at } }))),
    })
  }),
)
