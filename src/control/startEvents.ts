import { Effect, Queue, Stream } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { dependenciesText } from "../domain/Dependency.js"
import type { Reason } from "../domain/Reason.js"
import type { StartEvent } from "../domain/StartEvent.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { awaitCompletion, completedHereById } from "./completion.js"
import type { StartPlan } from "./plan.js"
import { startWithDependencies } from "./startOrder.js"
import { describeWaiting } from "./waiting.js"

/** The port a daemon template (`{{port}}`) names: the run's, else the configured one. */
const portLookup =
  (states: ReadonlyArray<DaemonState>, defs: ReadonlyArray<DaemonDefinition>, self: DaemonState) =>
  (id: string): { readonly port: number | undefined } | undefined => {
    const r = id === self.def.id.qualified ? self : states.find((x) => x.def.id.qualified === id)
    if (r) return { port: r.ports[0] ?? r.def.config.port?.expect[0] }
    const d = defs.find((x) => x.id.qualified === id)
    return d ? { port: d.config.port?.expect[0] } : undefined
  }

/**
 * The events of a start, what the CLI's spinner and transcript show: `{ waiting: [{ id, what }] }`
 * first for each daemon that waits for dependencies (`app/migrate to complete`), then for each
 * daemon once its process exists (what it waits for, with the ports it got),
 * `{ outcome }` as soon as it is ready, completed or failed, then `{ outcomes }` with all of them
 * in start order. The start runs in the stream's scope: a client that leaves interrupts it, as it
 * would interrupt a plain start request.
 */
export const startEvents = (
  sup: SupervisorShape,
  plan: StartPlan,
  reason: Reason,
): Stream.Stream<StartEvent> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const events = yield* Queue.unbounded<StartEvent>()
      const defs = [...plan.dependencies, ...plan.requested]
      const onSpawned = (def: DaemonDefinition) => (r: DaemonState) =>
        Effect.flatMap(sup.list, (all) =>
          Queue.offer(events, {
            waiting: [{ id: def.id.qualified, what: describeWaiting(def, portLookup(all, defs, r)) }],
          }),
        )
      yield* Effect.forkScoped(
        startWithDependencies(
          (def, options) =>
            sup.begin(def, {
              ...options,
              reason,
              onSpawned: (r) => Effect.zipRight(onSpawned(def)(r), options.onSpawned?.(r) ?? Effect.void),
            }),
          plan.requested,
          plan.dependencies,
          plan.force,
          // each outcome is told as it comes; the state file has them all before the last event
          {
            onOutcome: (outcome) => Queue.offer(events, { outcome }),
            isRunning: sup.isRunning,
            completedHere: completedHereById(sup),
            portConflict: sup.portConflict,
            sync: sup.sync,
            completion: awaitCompletion(sup),
            // before anything starts: what each daemon waits for of its dependencies
            onHeld: (def, pending) =>
              Queue.offer(events, {
                waiting: [{ id: def.id.qualified, what: dependenciesText(pending), dependencies: pending }],
              }),
          },
        ).pipe(Effect.flatMap((outcomes) => Queue.offer(events, { outcomes }))),
      )
      return Stream.fromQueue(events).pipe(Stream.takeUntil((e) => "outcomes" in e))
    }),
  )
