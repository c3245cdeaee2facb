import { Context, type Duration, Effect, ExecutionStrategy, Exit, Layer, Queue, Scope, Stream } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { LogStore } from "../../logs/LogStore.js"
import { ProjectRegistry, type ProjectRegistryShape } from "../../registry/ProjectRegistry.js"
import { allDefinitions } from "../../registry/snapshot.js"
import { Supervisor, type SupervisorShape } from "../Supervisor.js"
import { SupervisorConfig } from "../SupervisorConfig.js"
import { changedText, makeDebouncer } from "./debounce.js"
import { type Backend, chokidarBackend, openWatcher } from "./fileWatcher.js"
import { sameSpec, specsOf, type WatchSpec } from "./spec.js"

// Restarts daemons when their watched files change (docs/watch.md). Its input is a stream of
// watch specs: those of the daemons the supervisor knows, as their files configure them now
// (`configuredSpecs`: the live registry's definition, else the one the daemon last started with).

export interface WatchShape {
  /** The specs watched now. */
  readonly watched: Effect.Effect<ReadonlyArray<WatchSpec>>
}

export class Watch extends Context.Tag("supervisor/Watch")<Watch, WatchShape>() {}

export interface WatchDeps {
  /** Restarts the daemon if it runs and is enabled; `detail` says what changed. */
  readonly restart: (id: string, detail: string) => Effect.Effect<void>
  /** Writes a `[supervisor]` line into the daemon's log. */
  readonly note: (id: string, text: string) => Effect.Effect<void>
  readonly backend: Backend
  readonly stateDir: string | undefined
  readonly debounce: Duration.Duration
  readonly pollInterval: Duration.Duration
}

const sameSpecs = (a: ReadonlyArray<WatchSpec>, b: ReadonlyArray<WatchSpec>) =>
  a.length === b.length && a.every((s, i) => sameSpec(s, b[i] as WatchSpec))

/** The watch specs of the daemons the supervisor knows, now and after each change of them. */
export const daemonSpecs = (supervisor: SupervisorShape): Stream.Stream<ReadonlyArray<WatchSpec>> =>
  supervisor.changes.pipe(
    Stream.map((daemons) => specsOf(daemons.values())),
    Stream.changesWith(sameSpecs),
  )

/**
 * The watch specs of the daemons the supervisor knows, each with its `watch` list as its file
 * says now: an edited list applies without a restart of the daemon or the supervisor.
 */
export const configuredSpecs = (
  supervisor: SupervisorShape,
  configured: Stream.Stream<ReadonlyMap<string, DaemonDefinition>>,
): Stream.Stream<ReadonlyArray<WatchSpec>> =>
  Stream.zipLatest(supervisor.changes, configured).pipe(
    Stream.map(([daemons, defs]) =>
      specsOf([...daemons.values()].map((d) => ({ ...d, def: defs.get(d.def.id.qualified) ?? d.def }))),
    ),
    Stream.changesWith(sameSpecs),
  )

/** The registry's definitions by qualified ID, now and after each reload. */
const registryDefinitions = (
  registry: ProjectRegistryShape,
): Stream.Stream<ReadonlyMap<string, DaemonDefinition>> =>
  registry.snapshot.changes.pipe(
    Stream.map((snapshot) => new Map(allDefinitions(snapshot).map((d) => [d.id.qualified, d]))),
  )

/**
 * Follows `specs` for as long as the scope lives: a new spec opens a watcher, a changed one
 * reopens it, a removed one closes it. Changes are debounced per daemon, then `restart`ed.
 */
export const makeWatch = (
  specs: Stream.Stream<ReadonlyArray<WatchSpec>>,
  deps: WatchDeps,
): Effect.Effect<WatchShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const debouncer = yield* makeDebouncer(deps.debounce, (id, files) => deps.restart(id, changedText(files)))
    // Backends report from their own callbacks: one queue into the debouncer, in order.
    const changes = yield* Queue.unbounded<{ readonly id: string; readonly file: string }>()
    yield* Effect.forkScoped(
      Effect.forever(Effect.flatMap(Queue.take(changes), (c) => debouncer.touch(c.id, c.file))),
    )
    const outer = yield* Effect.scope
    const open = new Map<string, { readonly spec: WatchSpec; readonly scope: Scope.CloseableScope }>()
    const close = (id: string) =>
      Effect.suspend(() => {
        const w = open.get(id)
        open.delete(id)
        return w === undefined
          ? Effect.void
          : Effect.zipRight(Scope.close(w.scope, Exit.void), debouncer.cancel(id))
      })
    const apply = (next: ReadonlyArray<WatchSpec>) =>
      Effect.gen(function* () {
        for (const [id, w] of [...open]) {
          const spec = next.find((s) => s.id === id)
          if (spec === undefined || !sameSpec(spec, w.spec)) yield* close(id)
        }
        for (const spec of next) {
          if (open.has(spec.id)) continue
          const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
          open.set(spec.id, { spec, scope })
          const watcher = openWatcher(spec, {
            backend: deps.backend,
            stateDir: deps.stateDir,
            pollInterval: deps.pollInterval,
            changed: (file) => Queue.unsafeOffer(changes, { id: spec.id, file }),
            note: (text) => deps.note(spec.id, text),
          })
          // set up in the background: a slow directory tree does not hold up the others
          yield* Effect.forkIn(Scope.extend(watcher, scope), scope)
        }
      })
    yield* Effect.forkScoped(Stream.runForEach(specs, apply))
    return { watched: Effect.sync(() => [...open.values()].map((w) => w.spec)) }
  })

export interface WatchLiveOptions {
  /** The state directory: never watched unless a pattern names it. */
  readonly stateDir?: string
  /** The file-watching backend (chokidar by default). */
  readonly backend?: Backend
}

/** The watch service of the supervisor process, fed with its daemons' `watch` lists. */
export const WatchLive = (options: WatchLiveOptions = {}) =>
  Layer.scoped(
    Watch,
    Effect.gen(function* () {
      const supervisor = yield* Supervisor
      const registry = yield* ProjectRegistry
      const logs = yield* LogStore
      const { settings } = yield* SupervisorConfig
      return yield* makeWatch(configuredSpecs(supervisor, registryDefinitions(registry)), {
        // the restart takes the daemon as its file configures it now
        restart: (id, detail) =>
          Effect.flatMap(registry.definitions, (defs) =>
            supervisor.restartIfRunning(
              id,
              "watch",
              defs.find((d) => d.id.qualified === id),
              detail,
            ),
          ).pipe(Effect.ignore),
        note: (id, text) =>
          logs
            .note(id, text)
            .pipe(
              Effect.catchAll((e) => Effect.logWarning(`cannot write to the log of ${id}: ${e.message}`)),
            ),
        backend: options.backend ?? chokidarBackend,
        stateDir: options.stateDir,
        debounce: settings.supervisor.file_watch_debounce,
        pollInterval: settings.supervisor.watch_poll_interval,
      })
    }),
  )
