import { Deferred, Effect, Fiber } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { awaitsExit, conditionOf, conditionRank, type DependencyCondition } from "../domain/Dependency.js"
import { startLevels } from "../domain/dependencyLevels.js"
import { succeeded } from "../domain/outcomeKind.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { startFailed } from "../supervisor/daemon/outcomes.js"
import type { StartOptions } from "../supervisor/Supervisor.js"
import { type DaemonNow, NOT_RUN, startSet } from "./startSet.js"

/** Sends one start and returns the wait for its outcome (`Supervisor.begin`). */
export type Begin = (
  def: DaemonDefinition,
  options: StartOptions,
) => Effect.Effect<Effect.Effect<StartOutcome>>

/** `Begin` from a plain start that runs when awaited (tests; starts that need not overlap). */
export const beginFrom =
  (start: (def: DaemonDefinition, options: StartOptions) => Effect.Effect<StartOutcome>): Begin =>
  (def, options) =>
    Effect.succeed(start(def, options).pipe(Effect.tap((o) => options.onOutcome?.(o) ?? Effect.void)))

/** A dependency a daemon's start waits for, and on what condition. */
export interface PendingDependency {
  readonly id: string
  readonly condition: DependencyCondition
}

const why = (o: StartOutcome) =>
  o._tag === "StartFailed"
    ? o.message
    : o._tag === "Disabled"
      ? "it is disabled"
      : "it was stopped while starting"

/** Whether a dependency's state satisfies a condition (`completed`: its outcome was made `Completed`). */
const satisfied = (condition: DependencyCondition, outcome: StartOutcome | undefined, spawned: boolean) =>
  (condition === "started" && spawned) || (outcome !== undefined && succeeded(outcome))

const notStarted = (id: string, dependency: StartOutcome, condition: DependencyCondition): StartOutcome => ({
  _tag: "StartFailed",
  id,
  message: `not started: its dependency ${dependency.id} ${awaitsExit(condition) ? "did not complete" : "failed"} (${why(dependency)})`,
  exit_code: null,
  signal: null,
  // the root cause's last output: why it did not complete or start
  output: dependency._tag === "StartFailed" ? dependency.output : [],
  cli_status: 1,
})

/**
 * Starts `requested` and the `dependencies` they need, dependencies first, level by level,
 * each level in parallel. A daemon starts once each dependency meets its condition: `ready`
 * (its outcome succeeded), `completed` (it exited 0: a dependency that is ready or already
 * running is waited for until its run ends, and its outcome is how that run ended) or `started`
 * (its process exists). A level waits for what the daemons of the later levels need of it.
 * Dependencies that run already are left alone, and so are their own dependencies (a completed
 * one-shot task behind a running dependency is not run again); `force` restarts only the
 * requested daemons. A `completed_once` dependency that exited 0 under this supervisor is met.
 * A daemon whose dependency failed is not started, and its outcome names the root cause. A
 * requested daemon that runs already (and is not forced) needs nothing started for it
 * (src/control/startSet.ts).
 * `onOutcome` hears each daemon's outcome as soon as it is known (the result lists them in start
 * order at the end). A level's starts are all sent, then awaited.
 */
export const startWithDependencies = (
  begin: Begin,
  requested: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
  hooks: {
    readonly onOutcome?: (outcome: StartOutcome) => Effect.Effect<void>
    /** More options of every start (the reason, `onSpawned`). */
    readonly start?: Omit<StartOptions, "force" | "onOutcome" | "sync">
    /** Whether a daemon runs now (a running one is not started again, nor what it depends on). */
    readonly isRunning?: (id: string) => Effect.Effect<boolean>
    /** Why a daemon's ports cannot be had (`Supervisor.portConflict`): checked before any spawn. */
    readonly portConflict?: (def: DaemonDefinition) => Effect.Effect<string | undefined>
    /** Whether a daemon's last run under this supervisor exited 0 (`completed_once` is met). */
    readonly completedHere?: (id: string) => Effect.Effect<boolean>
    /**
     * Waits until the state file has every change (`Supervisor.sync`): given, the daemons are
     * started without waiting for it each, and it runs once before the outcomes are returned.
     */
    readonly sync?: Effect.Effect<void>
    /**
     * Waits for a running daemon's run to end (the `completed` condition): `Completed` for exit
     * 0, else `StartFailed` with why and its last output. Without it, ready counts as completed.
     */
    readonly completion?: (id: string) => Effect.Effect<StartOutcome>
    /** Told first, for each daemon that waits for dependencies before it starts, which and why. */
    readonly onHeld?: (
      def: DaemonDefinition,
      pending: ReadonlyArray<PendingDependency>,
    ) => Effect.Effect<void>
  } = {},
) =>
  Effect.gen(function* () {
    const onOutcome = hooks.onOutcome ?? (() => Effect.void)
    const isRunning = hooks.isRunning ?? (() => Effect.succeed(false))
    const forced = new Set(force ? requested.map((d) => d.id.qualified) : [])
    // what each daemon of the start is now: whether it runs, and whether it completed here
    const states = new Map<string, DaemonNow>()
    for (const d of [...dependencies, ...requested]) {
      const id = d.id.qualified
      if (states.has(id)) continue
      const running = yield* isRunning(id)
      const completedHere = !running && hooks.completedHere !== undefined && (yield* hooks.completedHere(id))
      states.set(id, { running, completedHere })
    }
    const lookup = (id: string) => states.get(id) ?? NOT_RUN
    let set = startSet(requested, dependencies, forced, lookup)
    // ports first, before anything is spawned: a daemon whose ports are taken fails, with its
    // dependents, and the dependencies that only they need are not started
    const refused = new Map<string, StartOutcome>()
    if (hooks.portConflict !== undefined) {
      for (const [id, def] of set.all) {
        // a running daemon (forced or not) holds its own ports; one that starts nothing first
        // is checked by its own start (its status `failed`, `on_fail`)
        if (states.get(id)?.running) continue
        if (!def.config.depends.some((d) => set.all.has(d) && !set.running.has(d))) continue
        const message = yield* hooks.portConflict(def)
        if (message !== undefined) refused.set(id, startFailed(id, message, undefined, [], 1))
      }
      for (let grew = refused.size > 0; grew; ) {
        grew = false
        for (const [id, def] of set.all) {
          if (refused.has(id) || set.running.has(id)) continue
          const dep = def.config.depends.find((d) => refused.has(d))
          if (dep === undefined) continue
          refused.set(id, notStarted(id, refused.get(dep)!, conditionOf(def.config, dep)))
          grew = true
        }
      }
      if (refused.size > 0)
        set = startSet(
          requested.filter((d) => !refused.has(d.id.qualified)),
          dependencies,
          forced,
          lookup,
        )
    }
    const all = new Map([...set.all].filter(([id]) => !refused.has(id)))
    // the daemons that start (the others run already and are only waited for)
    const starting = [...all.keys()].filter((id) => !set.running.has(id))
    // what the daemons that start need of each dependency: the most any of them asks
    const needed = new Map<string, DependencyCondition>()
    const pendingOf = (def: DaemonDefinition) =>
      def.config.depends
        .filter((dep) => all.has(dep))
        .map((dep) => ({ id: dep, condition: conditionOf(def.config, dep) }))
    for (const id of starting) {
      for (const p of pendingOf(all.get(id)!)) {
        const before = needed.get(p.id)
        if (before === undefined || conditionRank(p.condition) > conditionRank(before))
          needed.set(p.id, p.condition)
      }
    }
    if (hooks.onHeld !== undefined) {
      for (const id of starting) {
        const def = all.get(id)!
        const pending: Array<PendingDependency> = []
        // a running dependency is waited for only until it completes
        for (const p of pendingOf(def))
          if (awaitsExit(p.condition) || !states.get(p.id)?.running) pending.push(p)
        if (pending.length > 0) yield* hooks.onHeld(def, pending)
      }
    }

    const outcomes = new Map<string, StartOutcome>(refused)
    const spawned = new Set<string>()
    const order: Array<string> = [...refused.keys()]
    for (const o of refused.values()) yield* onOutcome(o)
    const later: Array<Fiber.Fiber<StartOutcome>> = []
    for (const level of startLevels(all)) {
      order.push(...level)
      const waits: Array<Effect.Effect<unknown>> = []
      for (const id of level) {
        const def = all.get(id)!
        const settle = (o: StartOutcome) => {
          outcomes.set(id, o)
          return onOutcome(o)
        }
        const unmet = pendingOf(def).find(
          (p) => !satisfied(p.condition, outcomes.get(p.id), spawned.has(p.id)),
        )
        if (unmet) {
          yield* settle(notStarted(id, outcomes.get(unmet.id)!, unmet.condition))
          continue
        }
        const wanted = needed.get(id)
        // `started`: the next level may start once the process exists (or the start settled)
        const gate = wanted === "started" ? yield* Deferred.make<void>() : undefined
        const open = gate === undefined ? Effect.void : Deferred.succeed(gate, undefined)
        const completing = wanted !== undefined && awaitsExit(wanted) && hooks.completion !== undefined
        const told = hooks.start?.onSpawned
        const options: StartOptions = {
          force: forced.has(id),
          ...(hooks.start ?? {}),
          // only a `started` dependency needs to hear its spawn (each listener costs a state read)
          ...(gate === undefined
            ? {}
            : {
                onSpawned: (r: DaemonState) =>
                  Effect.zipRight(
                    told?.(r) ?? Effect.void,
                    Effect.zipRight(
                      Effect.sync(() => spawned.add(id)),
                      open,
                    ),
                  ),
              }),
          // `completed`: the outcome is told once the run ended
          ...(completing ? {} : { onOutcome: (o: StartOutcome) => Effect.zipRight(settle(o), open) }),
          ...(hooks.sync === undefined ? {} : { sync: false }),
        }
        const wait = yield* begin(def, options)
        if (completing) {
          const done = (o: StartOutcome) =>
            o._tag === "Ready" || o._tag === "AlreadyRunning" ? hooks.completion!(id) : Effect.succeed(o)
          waits.push(Effect.flatMap(Effect.flatMap(wait, done), settle))
        } else if (gate !== undefined) {
          // its outcome is awaited at the end; the start of a plain `begin` runs in that fiber,
          // which opens the gate as well when the outcome comes untold (a lifecycle that ended)
          later.push(yield* Effect.fork(Effect.tap(wait, () => open)))
          waits.push(Deferred.await(gate))
        } else waits.push(wait)
      }
      for (const wait of waits) yield* wait
    }
    for (const fiber of later) yield* Fiber.join(fiber)
    if (hooks.sync !== undefined) yield* hooks.sync
    return order.map((id) => outcomes.get(id)!)
  })
