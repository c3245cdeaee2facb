// A start as a stream of ndjson events, for a CLI that shows its progress (a spinner on a
// terminal, else a transcript): what each daemon waits for once it is spawned, its outcome as
// soon as it is settled, then all the outcomes. Used by `POST /api/cli/start/stream` (the full
// CLI) and `POST /api/cli/start-from` (the quick client).
import { Effect, Queue, Stream } from "effect"
import { describeWaiting } from "../cli/waiting.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { StartEvent } from "../domain/StartEvent.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { startWithDependencies } from "../supervisor/startOrder.js"
import { ndjsonLines } from "./ndjson.js"

/** The port a daemon template (`{{port}}`) names: the run's, else the configured one. */
const portLookup =
  (runtimes: ReadonlyArray<DaemonState>, defs: ReadonlyArray<DaemonDefinition>, self: DaemonState) =>
  (id: string): { readonly port: number | undefined } | undefined => {
    const r = id === self.def.id.qualified ? self : runtimes.find((x) => x.def.id.qualified === id)
    if (r) return { port: r.ports[0] ?? r.def.config.port?.expect[0] }
    const d = defs.find((x) => x.id.qualified === id)
    return d ? { port: d.config.port?.expect[0] } : undefined
  }

interface Event {
  readonly line: Uint8Array
  readonly last: boolean
}

/** One event as its ndjson line, encoded through the StartEvent schema (src/domain/StartEvent.ts). */
export const startEventLine = ndjsonLines(StartEvent)

/**
 * The events of a start (StartEvent): `{ "waiting": [{ id, what }] }` for each daemon once its
 * process exists (what it waits for, with the ports it got), `{ "outcome": ... }` as soon as it
 * is ready, completed or failed, then `{ "outcomes": [...] }` with all of them in start order. The
 * start runs in the stream's scope: a client that leaves interrupts it, as it would interrupt a
 * plain start request.
 */
export const startEvents = (
  sup: Pick<SupervisorShape, "start" | "list" | "isRunning" | "sync">,
  requested: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
): Stream.Stream<Uint8Array> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const events = yield* Queue.unbounded<Event>()
      const emit = (value: StartEvent, last = false) =>
        Queue.offer(events, { line: startEventLine(value), last })
      const defs = [...dependencies, ...requested]
      const onSpawned = (def: DaemonDefinition) => (r: DaemonState) =>
        Effect.flatMap(sup.list, (all) =>
          emit({ waiting: [{ id: def.id.qualified, what: describeWaiting(def, portLookup(all, defs, r)) }] }),
        )
      yield* Effect.forkScoped(
        startWithDependencies(
          (def, options) => sup.start(def, { ...options, onSpawned: onSpawned(def) }),
          requested,
          dependencies,
          force,
          // each outcome is told as it comes; the state file has them all before the last line
          { onOutcome: (outcome) => emit({ outcome }), isRunning: sup.isRunning, sync: sup.sync },
        ).pipe(Effect.flatMap((outcomes) => emit({ outcomes }, true))),
      )
      return Stream.fromQueue(events).pipe(
        Stream.takeUntil((e) => e.last),
        Stream.map((e) => e.line),
      )
    }),
  )
