import { Effect } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { startLevels } from "../domain/dependencyLevels.js"
import { succeeded } from "../domain/outcomeKind.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { StartOptions } from "../supervisor/Supervisor.js"

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

const why = (o: StartOutcome) =>
  o._tag === "StartFailed"
    ? o.message
    : o._tag === "Disabled"
      ? "it is disabled"
      : "it was stopped while starting"

/**
 * Starts `requested` and the `dependencies` they need, dependencies first, level by level,
 * each level in parallel. Dependencies that run already are left alone; `force` restarts only
 * the requested daemons. A daemon whose dependency failed is not started, and its outcome
 * names the root cause. A requested daemon that runs already (and is not forced) needs nothing
 * started for it: dependencies that only it needs are left alone (a completed one-shot task is
 * not run again). `onOutcome` hears each daemon's outcome as soon as it is known (the result
 * lists them in start order at the end). A level's starts are all sent, then awaited.
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
    /** Whether a daemon runs now (a running one is not started again). */
    readonly isRunning?: (id: string) => Effect.Effect<boolean>
    /**
     * Waits until the state file has every change (`Supervisor.sync`): given, the daemons are
     * started without waiting for it each, and it runs once before the outcomes are returned.
     */
    readonly sync?: Effect.Effect<void>
  } = {},
) =>
  Effect.gen(function* () {
    const onOutcome = hooks.onOutcome ?? (() => Effect.void)
    const forced = new Set(force ? requested.map((d) => d.id.qualified) : [])
    const byId = new Map<string, DaemonDefinition>()
    for (const d of dependencies) byId.set(d.id.qualified, d)
    for (const d of requested) byId.set(d.id.qualified, d)
    // the dependencies the requested daemons that will start need, transitively
    const all = new Map<string, DaemonDefinition>()
    const need = (d: DaemonDefinition): void => {
      if (all.has(d.id.qualified)) return
      all.set(d.id.qualified, d)
      for (const dep of d.config.depends) {
        const def = byId.get(dep)
        if (def) need(def)
      }
    }
    for (const d of requested) {
      const running =
        !forced.has(d.id.qualified) &&
        hooks.isRunning !== undefined &&
        (yield* hooks.isRunning(d.id.qualified))
      if (running) all.set(d.id.qualified, d)
      else need(d)
    }
    const outcomes = new Map<string, StartOutcome>()
    const order: Array<string> = []
    for (const level of startLevels(all)) {
      order.push(...level)
      const waits: Array<Effect.Effect<StartOutcome>> = []
      for (const id of level) {
        const def = all.get(id)!
        const failed = def.config.depends
          .map((d) => outcomes.get(d))
          .find((o) => o !== undefined && !succeeded(o))
        const settle = (o: StartOutcome) => {
          outcomes.set(id, o)
          return onOutcome(o)
        }
        if (failed) {
          yield* settle({
            _tag: "StartFailed",
            id,
            message: `not started: its dependency ${failed.id} failed (${why(failed)})`,
            exit_code: null,
            signal: null,
            output: [],
            cli_status: 1,
          })
          continue
        }
        const options: StartOptions = {
          force: forced.has(id),
          onOutcome: settle,
          ...(hooks.start ?? {}),
          ...(hooks.sync === undefined ? {} : { sync: false }),
        }
        waits.push(yield* begin(def, options))
      }
      for (const wait of waits) yield* wait
    }
    if (hooks.sync !== undefined) yield* hooks.sync
    return order.map((id) => outcomes.get(id)!)
  })
