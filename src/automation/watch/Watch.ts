import { Context, Effect, ExecutionStrategy, Exit, Layer, Queue, Scope, Stream } from "effect"
import { Control } from "../../control/Control.js"
import { selectOne } from "../../control/startOne.js"
import { Restart } from "../../domain/Command.js"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { Settings } from "../../domain/Settings.js"
import { LogStore } from "../../logs/LogStore.js"
import { ProjectRegistry, type RegistrySnapshot } from "../../registry/ProjectRegistry.js"
import type { DaemonState } from "../../supervisor/DaemonState.js"
import { Supervisor, type SupervisorShape } from "../../supervisor/Supervisor.js"
import { changedText, makeDebouncer } from "./debounce.js"
import { type Backend, defaultBackend, openWatcher } from "./fileWatcher.js"
import { sameSpec, sameWatcher, specsOf, type WatchSpec, type WatchTiming } from "./spec.js"

// Restarts daemons when their watched files change (docs/watch.md). Its input is a stream of
// watch specs: those of the daemons the supervisor knows, as their files configure them now
// (`configuredSpecs`: the live registry's definition, else the one the daemon last started with),
// timed by the settings of their project.

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
  /** Records why the daemon's files cannot be watched, for `status`; undefined clears it. */
  readonly problem: (id: string, problem: string | undefined) => Effect.Effect<void>
  readonly backend: Backend
  readonly stateDir: string | undefined
}

/** What the registry says of the daemons now: their definitions and the timing of their watching. */
export interface ConfiguredWatch {
  readonly definitions: ReadonlyMap<string, DaemonDefinition>
  readonly timing: (id: string) => WatchTiming
}

const sameSpecs = (a: ReadonlyArray<WatchSpec>, b: ReadonlyArray<WatchSpec>) =>
  a.length === b.length && a.every((s, i) => sameSpec(s, b[i] as WatchSpec))

/** The watch specs of the daemons the supervisor knows, now and after each change of them. */
export const daemonSpecs = (
  supervisor: SupervisorShape,
  timing: WatchTiming,
): Stream.Stream<ReadonlyArray<WatchSpec>> =>
  supervisor.changes.pipe(
    Stream.map((daemons) =>
      specsOf(
        Array.from(daemons.values(), (d) => d.def),
        () => timing,
      ),
    ),
    Stream.changesWith(sameSpecs),
  )

/**
 * The watch specs of the daemons the supervisor knows, each with its `watch` list as its file
 * says now: an edited list applies without a restart of the daemon or the supervisor.
 */
export const configuredSpecs = (
  supervisor: SupervisorShape,
  configured: Stream.Stream<ConfiguredWatch>,
): Stream.Stream<ReadonlyArray<WatchSpec>> =>
  Stream.zipLatest(supervisor.changes, configured).pipe(
    // runs at every state change of every daemon, where mostly only a status changed: the specs
    // are made again only when a daemon came, went or was defined anew, or the files changed
    Stream.mapAccum(
      { defs: [] as ReadonlyArray<DaemonDefinition>, from: undefined as ConfiguredWatch | undefined },
      (last, [daemons, watch]) => {
        const defs = sameDefinitions(daemons, last.defs)
          ? last.defs
          : Array.from(daemons.values(), (d) => d.def)
        const unchanged = defs === last.defs && watch === last.from
        return [
          { defs, from: watch },
          unchanged
            ? undefined
            : specsOf(
                defs.map((def) => watch.definitions.get(def.id.qualified) ?? def),
                watch.timing,
              ),
        ]
      },
    ),
    Stream.filter((specs): specs is ReadonlyArray<WatchSpec> => specs !== undefined),
    Stream.changesWith(sameSpecs),
  )

/** Whether the daemons have exactly these definitions, in this order (the same objects). */
const sameDefinitions = (
  daemons: ReadonlyMap<string, DaemonState>,
  defs: ReadonlyArray<DaemonDefinition>,
): boolean => {
  if (daemons.size !== defs.length) return false
  let i = 0
  for (const d of daemons.values()) if (d.def !== defs[i++]) return false
  return true
}

export const timingOf = (settings: Settings): WatchTiming => ({
  debounce: settings.supervisor.file_watch_debounce,
  pollInterval: settings.supervisor.watch_poll_interval,
})

/**
 * The registry's definitions by qualified ID; each daemon is timed by the settings of the project
 * that configures it (global files, project files, environment), a daemon no project configures
 * (ad-hoc) by the global settings.
 */
export const configuredWatchOf = (snapshot: RegistrySnapshot): ConfiguredWatch => {
  const definitions = new Map<string, DaemonDefinition>()
  const timings = new Map<string, WatchTiming>()
  // the first project that configures a daemon wins, as in `allDefinitions`
  for (const p of snapshot.projects)
    for (const [id, def] of p.definitions) {
      if (definitions.has(id)) continue
      definitions.set(id, def)
      timings.set(id, timingOf(p.config?.settings ?? snapshot.settings))
    }
  const global = timingOf(snapshot.settings)
  return { definitions, timing: (id) => timings.get(id) ?? global }
}

/**
 * Follows `specs` for as long as the scope lives: a new spec opens a watcher, a changed one
 * reopens it, a removed one closes it. Changes are debounced per daemon, then `restart`ed.
 */
export const makeWatch = (
  specs: Stream.Stream<ReadonlyArray<WatchSpec>>,
  deps: WatchDeps,
): Effect.Effect<WatchShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const open = new Map<string, { spec: WatchSpec; readonly scope: Scope.CloseableScope }>()
    // the debounce in force when the change comes
    const debouncer = yield* makeDebouncer(
      (id) => open.get(id)?.spec.timing.debounce ?? 0,
      (id, files) => deps.restart(id, changedText(files)),
    )
    // Backends report from their own callbacks: one queue into the debouncer, in order.
    const changes = yield* Queue.unbounded<{ readonly id: string; readonly file: string }>()
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.take(changes), (c) =>
          open.has(c.id) ? debouncer.touch(c.id, c.file) : Effect.void,
        ),
      ),
    )
    const outer = yield* Effect.scope
    const close = (id: string) =>
      Effect.suspend(() => {
        const w = open.get(id)
        open.delete(id)
        return w === undefined
          ? Effect.void
          : Effect.all([Scope.close(w.scope, Exit.void), debouncer.cancel(id), deps.problem(id, undefined)])
      })
    const apply = (next: ReadonlyArray<WatchSpec>) =>
      Effect.gen(function* () {
        for (const [id, w] of [...open]) {
          const spec = next.find((s) => s.id === id)
          if (spec === undefined || !sameWatcher(spec, w.spec)) yield* close(id)
          // a new debounce applies from the next change on; the watcher stays
          else w.spec = spec
        }
        for (const spec of next) {
          if (open.has(spec.id)) continue
          const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
          open.set(spec.id, { spec, scope })
          const watcher = openWatcher(spec, {
            backend: deps.backend,
            stateDir: deps.stateDir,
            pollInterval: spec.timing.pollInterval,
            changed: (file) => Queue.unsafeOffer(changes, { id: spec.id, file }),
            note: (text) => deps.note(spec.id, text),
            problem: (text) => deps.problem(spec.id, text),
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
  /** The file-watching backend (`defaultBackend`: native, or chokidar polling). */
  readonly backend?: Backend
}

/** The watch service of the supervisor process, fed with its daemons' `watch` lists. */
export const WatchLive = (options: WatchLiveOptions = {}) =>
  Layer.scoped(
    Watch,
    Effect.gen(function* () {
      const supervisor = yield* Supervisor
      const control = yield* Control
      const registry = yield* ProjectRegistry
      const logs = yield* LogStore
      return yield* makeWatch(
        configuredSpecs(supervisor, registry.snapshot.changes.pipe(Stream.map(configuredWatchOf))),
        {
          // a command to Control, which restarts the daemon as its file configures it now
          restart: (id, detail) =>
            control
              .handle(
                new Restart({
                  selection: selectOne(id),
                  if_running: true,
                  detail,
                  reason: "watch",
                  wait: "none",
                }),
              )
              .pipe(Effect.ignore),
          note: (id, text) =>
            logs
              .note(id, text)
              .pipe(
                Effect.catchAll((e) => Effect.logWarning(`cannot write to the log of ${id}: ${e.message}`)),
              ),
          problem: control.reportWatchProblem,
          backend: options.backend ?? defaultBackend,
          stateDir: options.stateDir,
        },
      )
    }),
  )
