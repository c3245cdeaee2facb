import * as fs from "node:fs"
import * as nodePath from "node:path"
import { watch } from "chokidar"
import { Deferred, Duration, Effect, Either, ExecutionStrategy, Exit, Scope } from "effect"
import { globProblem } from "../../domain/Glob.js"
import type { Backend, BackendOptions } from "./backend.js"
import { nativeBackend } from "./nativeBackend.js"
import {
  displayPath,
  type PathFilter,
  pathFilter,
  targetOf,
  type WatchSpec,
  type WatchTarget,
  widen,
} from "./spec.js"

export type { Backend, BackendEvents, BackendOptions } from "./backend.js"

/** Polling through chokidar (its native mode re-reads a directory at each event in it). */
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
  const scanned = new Promise<void>((resolve) => w.once("ready", () => resolve()))
  return {
    // Closed during its first scan, chokidar leaves a failed stat unhandled, which would end the
    // process: a watcher that failed is closed once that scan is over (at most CLOSE_WAIT later).
    close: async () => {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([scanned, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT)))])
      clearTimeout(timer)
      await w.close()
    },
  }
}

export const defaultBackend: Backend = (roots, options, on) =>
  (options.poll ? chokidarBackend : nativeBackend)(roots, options, on)

/** How long a closing watcher waits for the end of its first scan. */
const CLOSE_WAIT = 5000

export interface WatcherEnv {
  readonly backend: Backend
  readonly stateDir: string | undefined
  readonly pollInterval: Duration.Duration
  /** A file of the daemon changed (its name relative to the spec's base directory). */
  readonly changed: (file: string) => void
  /** Writes a `[supervisor]` line into the daemon's log. */
  readonly note: (text: string) => Effect.Effect<void>
  /** Why the files cannot be watched (for `status`); undefined once the watcher is set up. */
  readonly problem: (text: string | undefined) => Effect.Effect<void>
}

/** How soon a watcher that could not be set up is tried again; then twice as long each time, up to RETRY_MAX. */
const RETRY_FIRST = Duration.seconds(1)
const RETRY_MAX = Duration.minutes(1)

/** The outcome of one setup: watching (natively or by polling), or failed (its attempt still open). */
type SetUp =
  | { readonly _tag: "Watching"; readonly poll: boolean }
  | { readonly _tag: "Failed"; readonly error: Error; readonly close: Effect.Effect<void> }

/** What a backend leaves out: a path neither matched nor descended (as a file or directory, once known). */
export const ignoredBy =
  (filter: PathFilter): BackendOptions["ignored"] =>
  (path, stats) => {
    if (stats === undefined) return !filter.matches(path) && !filter.descends(path)
    return stats.isDirectory() ? !filter.descends(path) : !filter.matches(path)
  }

/** The pattern's target, moved up to the nearest directory that exists (it is watched for the rest). */
const existingTarget = (t: WatchTarget): WatchTarget => {
  let target = t
  while (!fs.existsSync(target.root) && nodePath.dirname(target.root) !== target.root) target = widen(target)
  return target
}

/** `CODE: message`; Node's own errors already start with their code. */
const messageOf = (e: Error) =>
  "code" in e && typeof e.code === "string" && !e.message.startsWith(`${e.code}:`)
    ? `${e.code}: ${e.message}`
    : e.message

/**
 * What makes two setup errors the same problem: the error code and system call when the error
 * has them (the files of one symlink loop fail in whichever order they are read), else the message.
 */
const kindOf = (e: Error) =>
  "code" in e && typeof e.code === "string"
    ? `${e.code} ${"syscall" in e && typeof e.syscall === "string" ? e.syscall : ""}`
    : messageOf(e)
/**
 * Watches one daemon's files for as long as the scope lives: `auto` falls back to polling when
 * native watching cannot be set up. Problems are written into the daemon's log, and a watcher
 * that cannot be set up is reported to `problem` as well; none fails.
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
    const ignored = ignoredBy(filter)
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
      env
        .note(`watch: watching ${targets.map((t) => t.pattern).join(", ")} (${poll ? every : "native"})`)
        .pipe(Effect.zipRight(env.problem(undefined)))
    const cannot = (e: Error) => {
      const text = `cannot watch files: ${messageOf(e)}`
      return Effect.zipRight(env.note(`watch: ${text}`), env.problem(text))
    }
    /** One setup as the mode says: how it watches, else why not (the attempt is left open). */
    const setUp = (quiet: boolean): Effect.Effect<SetUp> =>
      Effect.gen(function* () {
        const first = yield* attempt(spec.mode === "poll")
        if (Either.isRight(first.result)) return { _tag: "Watching", poll: spec.mode === "poll" }
        if (spec.mode !== "auto") return { _tag: "Failed", error: first.result.left, close: first.close }
        yield* first.close
        if (!quiet)
          yield* env.note(
            `watch: native file watching failed (${messageOf(first.result.left)}); ${every} instead`,
          )
        const second = yield* attempt(true)
        if (Either.isRight(second.result)) return { _tag: "Watching", poll: true }
        return { _tag: "Failed", error: second.result.left, close: second.close }
      })
    const initial = yield* setUp(false)
    if (initial._tag === "Watching") return yield* watching(initial.poll)
    // what could be set up keeps watching; the setup is tried again, quietly unless its error
    // changes, after RETRY_FIRST and then twice as long each time, up to RETRY_MAX
    yield* cannot(initial.error)
    const retry = (
      delay: Duration.Duration,
      failed: Effect.Effect<void>,
      last: string,
    ): Effect.Effect<void> =>
      Effect.sleep(delay).pipe(
        Effect.zipRight(setUp(true)),
        Effect.flatMap((next) => {
          if (next._tag === "Watching") return Effect.zipRight(failed, watching(next.poll))
          const text = kindOf(next.error)
          return next.close.pipe(
            Effect.zipRight(text === last ? Effect.void : cannot(next.error)),
            Effect.zipRight(retry(Duration.min(Duration.times(delay, 2), RETRY_MAX), failed, text)),
          )
        }),
      )
    yield* Effect.forkScoped(retry(RETRY_FIRST, initial.close, kindOf(initial.error)))
  })
