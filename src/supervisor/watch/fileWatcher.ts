import * as fs from "node:fs"
import * as nodePath from "node:path"
import { watch } from "chokidar"
import { Deferred, Duration, Effect, Either, ExecutionStrategy, Exit, Scope } from "effect"
import { globProblem } from "../../domain/Glob.js"
import { displayPath, pathFilter, targetOf, type WatchSpec, type WatchTarget, widen } from "./spec.js"

/** What a file-watching backend needs: the roots, polling or not, which paths to leave out. */
export interface BackendOptions {
  readonly poll: boolean
  readonly intervalMillis: number
  readonly ignored: (path: string, stats?: fs.Stats) => boolean
}

/** What a backend reports: a file added, changed or removed; ready (set up); a failure. */
export interface BackendEvents {
  readonly change: (path: string) => void
  readonly ready: () => void
  readonly error: (error: Error) => void
}

/** Starts watching `roots`; the result closes it. Chokidar in the supervisor, a fake in tests. */
export type Backend = (
  roots: ReadonlyArray<string>,
  options: BackendOptions,
  on: BackendEvents,
) => { readonly close: () => Promise<void> }

export const chokidarBackend: Backend = (roots, options, on) => {
  const w = watch([...roots], {
    ignoreInitial: true,
    persistent: true,
    usePolling: options.poll,
    interval: options.intervalMillis,
    binaryInterval: options.intervalMillis,
    ignored: options.ignored,
  })
  w.on("add", on.change)
  w.on("change", on.change)
  w.on("unlink", on.change)
  // chokidar may say ready more than once (one per root)
  w.once("ready", on.ready)
  w.on("error", (e) => on.error(e instanceof Error ? e : new Error(String(e))))
  return { close: () => w.close() }
}

export interface WatcherEnv {
  readonly backend: Backend
  readonly stateDir: string | undefined
  readonly pollInterval: Duration.Duration
  /** A file of the daemon changed (its name relative to the spec's base directory). */
  readonly changed: (file: string) => void
  /** Writes a `[supervisor]` line into the daemon's log. */
  readonly note: (text: string) => Effect.Effect<void>
}

/** The pattern's target, moved up to the nearest directory that exists (it is watched for the rest). */
const existingTarget = (t: WatchTarget): WatchTarget => {
  let target = t
  while (!fs.existsSync(target.root) && nodePath.dirname(target.root) !== target.root) target = widen(target)
  return target
}

const messageOf = (e: Error) =>
  "code" in e && typeof e.code === "string" ? `${e.code}: ${e.message}` : e.message

/**
 * Watches one daemon's files for as long as the scope lives: `auto` falls back to polling when
 * native watching cannot be set up. Problems are written into the daemon's log; none fails.
 */
export const openWatcher = (spec: WatchSpec, env: WatcherEnv): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const targets: Array<WatchTarget> = []
    for (const pattern of spec.patterns) {
      const problem = globProblem(pattern)
      if (problem === undefined) targets.push(existingTarget(targetOf(spec.baseDir, pattern)))
      else yield* env.note(`watch: ignoring ${problem}`)
    }
    if (targets.length === 0) return
    const roots = [...new Set(targets.map((t) => t.root))]
    const outer = roots.filter(
      (r) => !roots.some((o) => o !== r && r.startsWith(o === "/" ? o : o + nodePath.sep)),
    )
    const filter = pathFilter(targets, env.stateDir)
    const ignored = (path: string, stats?: fs.Stats) => {
      if (stats === undefined) return !filter.matches(path) && !filter.descends(path)
      return stats.isDirectory() ? !filter.descends(path) : !filter.matches(path)
    }
    const intervalMillis = Duration.toMillis(env.pollInterval)
    let reported = false
    /** Starts the backend; succeeds once it is ready, fails with its first error before that. */
    const start = (poll: boolean) =>
      Effect.gen(function* () {
        const setUp = yield* Deferred.make<void, Error>()
        let ready = false
        const handle = yield* Effect.acquireRelease(
          Effect.try({
            try: () =>
              env.backend(
                outer,
                { poll, intervalMillis, ignored },
                {
                  change: (path) => {
                    if (filter.matches(path)) env.changed(displayPath(spec.baseDir, path))
                  },
                  ready: () => {
                    ready = true
                    Deferred.unsafeDone(setUp, Effect.void)
                  },
                  error: (e) => {
                    if (!ready) return Deferred.unsafeDone(setUp, Effect.fail(e))
                    if (reported) return
                    reported = true // once per watcher: a failing directory is not a flood of lines
                    Effect.runFork(env.note(`watch: ${messageOf(e)}`))
                  },
                },
              ),
            catch: (e) => (e instanceof Error ? e : new Error(String(e))),
          }),
          (h) => Effect.promise(() => h.close()).pipe(Effect.ignore),
        )
        yield* Deferred.await(setUp)
        return handle
      })
    // Each attempt in a scope of its own: a native watcher that failed is closed before polling.
    const scope = yield* Effect.scope
    const attempt = (poll: boolean) =>
      Effect.gen(function* () {
        const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        const result = yield* Effect.either(Scope.extend(start(poll), child))
        return { result, close: Scope.close(child, Exit.void) }
      })
    const every = `polling every ${Duration.format(env.pollInterval)}`
    // once set up: the log says what is watched, and how
    const watching = (poll: boolean) =>
      env.note(`watch: watching ${targets.map((t) => t.pattern).join(", ")} (${poll ? every : "native"})`)
    const first = yield* attempt(spec.mode === "poll")
    if (Either.isRight(first.result)) return yield* watching(spec.mode === "poll")
    if (spec.mode === "auto") {
      yield* first.close
      yield* env.note(
        `watch: native file watching failed (${messageOf(first.result.left)}); ${every} instead`,
      )
      const second = yield* attempt(true)
      if (Either.isRight(second.result)) return yield* watching(true)
      yield* env.note(`watch: cannot watch files: ${messageOf(second.result.left)}`)
      return
    }
    // what could be set up keeps watching
    yield* env.note(`watch: cannot watch files: ${messageOf(first.result.left)}`)
  })
