// Where developers are: each live shell's directory (the shell hook's `supervisor cd`) and each
// project session of an IDE or agent (`supervisor project enter`). Entering a project starts its
// `auto = ["start"]` daemons; when the last shell or session has left it, its running
// `auto = ["stop"]` daemons are stopped after `general.autostop_delay` (docs/shell.md).
import { Context, Duration, Effect, FiberMap, FiberSet, Layer, Schedule } from "effect"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import { ProcessGone } from "../../domain/Presence.js"
import { isInside } from "./directories.js"

/** A live shell (its current directory) or a project session (the directory it entered). */
export interface Occupant {
  readonly kind: "shell" | "session"
  readonly pid: number
  readonly directory: string
  /** The process's start time when it was recorded: another one means the pid was reused. */
  readonly startTime: string
  /** When it was recorded (ms since the epoch). */
  readonly since: number
  /** A shell's: when the hook ran for its latest report (µs, monotonic clock), when it said. */
  readonly reportedAt?: number | undefined
}

/** A configured daemon with an `auto` key, and the directory of its project. */
export interface AutoDaemon {
  readonly id: string
  readonly dir: string
  readonly start: boolean
  readonly stop: boolean
  /** `general.autostop_delay` as its project's settings say. */
  readonly delay: Duration.Duration
}

/** What presence needs of the rest of the supervisor (fakes in tests). */
export interface PresenceDeps {
  /** The start time of a live process; undefined when it is gone. */
  readonly startTime: (pid: number) => string | undefined
  /** Makes the project at or above `dir` known, so that its daemons count. */
  readonly know: (dir: string) => Effect.Effect<void>
  /** Every known daemon with an `auto` key. */
  readonly autoDaemons: Effect.Effect<ReadonlyArray<AutoDaemon>>
  readonly isRunning: (id: string) => Effect.Effect<boolean>
  /** Starts daemons, their dependencies first (waits for their outcomes). */
  readonly start: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  /** Stops a daemon that nobody is inside the project of any more; `why` goes to its log. */
  readonly stop: (id: string, why: string) => Effect.Effect<void>
}

export interface PresenceShape {
  /**
   * The shell `pid` is now in `directory` (the hook's `supervisor cd`, run at `at`, in µs on the
   * monotonic clock): a report of a run older than the one recorded last is ignored.
   */
  readonly shellCd: (pid: number, directory: string, at?: number) => Effect.Effect<void, ProcessGone>
  /** A project session of the process `pid` in `directory` (an IDE's or agent's). */
  readonly enter: (pid: number, directory: string) => Effect.Effect<Occupant, ProcessGone>
  /** Ends the sessions of `pid` (only the one in `directory` when given); those ended. */
  readonly leave: (pid: number, directory: string | undefined) => Effect.Effect<ReadonlyArray<Occupant>>
  /** The live shells and sessions (the dead ones swept first). */
  readonly list: Effect.Effect<ReadonlyArray<Occupant>>
  /** Forgets the shells and sessions whose process is gone or was reused (also done periodically). */
  readonly sweep: Effect.Effect<void>
  /** The autostop notices not reported yet ("autostopped proj/api"); each is returned once. */
  readonly takeNotices: Effect.Effect<ReadonlyArray<string>>
  /** The daemons whose autostop is pending. */
  readonly pendingStops: Effect.Effect<ReadonlyArray<string>>
}

export class Presence extends Context.Tag("supervisor/Presence")<Presence, PresenceShape>() {}

/** How often dead shells are looked for between events. */
export const SWEEP_INTERVAL = Duration.seconds(2)

const keyOf = (kind: Occupant["kind"], pid: number, directory: string) =>
  kind === "shell" ? `shell:${pid}` : `session:${pid}:${directory}`

export const makePresence = (deps: PresenceDeps) =>
  Effect.gen(function* () {
    const occupants = new Map<string, Occupant>()
    const notices: Array<string> = []
    const lock = yield* Effect.makeSemaphore(1)
    const pending = yield* FiberMap.make<string>()
    const starts = yield* FiberSet.make()

    const occupied = (dir: string) => [...occupants.values()].some((o) => isInside(o.directory, dir))

    /** After the stop delay: stops the daemon if still nobody is inside its project. */
    const autostop = (d: AutoDaemon) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          // cancellable until decided; the stop itself runs to its end
          const go = yield* restore(
            lock.withPermits(1)(
              Effect.gen(function* () {
                yield* sweepLocked
                return !occupied(d.dir) && (yield* deps.isRunning(d.id))
              }),
            ),
          )
          if (!go) return
          const delay = formatHumanDuration(Duration.toMillis(d.delay))
          const why = `no shell or project session in ${d.dir} for ${delay}`
          yield* Effect.logInfo(`autostopping ${d.id}: ${why}`)
          yield* deps.stop(d.id, `autostopped: ${why}`)
          notices.push(`autostopped ${d.id}`)
        }),
      )

    /** An occupant moved from `from` to `to` (undefined: it appeared, or it left). */
    const move = (from: string | undefined, to: string | undefined): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (to !== undefined) yield* deps.know(to)
        const toStart: Array<string> = []
        for (const d of yield* deps.autoDaemons) {
          const wasIn = from !== undefined && isInside(from, d.dir)
          const isIn = to !== undefined && isInside(to, d.dir)
          if (isIn) {
            // coming back within the delay cancels the stop
            yield* FiberMap.remove(pending, d.id)
            if (!wasIn && d.start && !(yield* deps.isRunning(d.id))) toStart.push(d.id)
          } else if (wasIn && d.stop && !occupied(d.dir)) {
            const wait = Duration.toMillis(d.delay) > 0 ? Effect.sleep(d.delay) : Effect.void
            yield* FiberMap.run(pending, d.id, Effect.zipRight(wait, autostop(d)), { onlyIfMissing: true })
          }
        }
        // the start waits for readiness: never under the lock
        if (toStart.length > 0) yield* FiberSet.run(starts, deps.start(toStart))
      })

    const sweepLocked: Effect.Effect<void> = Effect.gen(function* () {
      for (const [key, o] of [...occupants]) {
        if (deps.startTime(o.pid) === o.startTime) continue
        occupants.delete(key)
        yield* Effect.logInfo(`the ${o.kind} of pid ${o.pid} is gone: it left ${o.directory}`)
        yield* move(o.directory, undefined)
      }
    })

    const record = (kind: Occupant["kind"], pid: number, directory: string, at?: number) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          yield* sweepLocked
          const startTime = deps.startTime(pid)
          if (startTime === undefined)
            return yield* new ProcessGone({ message: `no running process has pid ${pid}` })
          const key = keyOf(kind, pid, directory)
          const before = occupants.get(key)
          // a late report of an earlier `cd` (two hooks' reports raced): the shell is not there now
          if (before?.reportedAt !== undefined && at !== undefined && at < before.reportedAt) return before
          const occupant: Occupant = {
            kind,
            pid,
            directory,
            startTime,
            since: before?.since ?? Date.now(),
            reportedAt: at ?? before?.reportedAt,
          }
          occupants.set(key, occupant)
          if (before?.directory !== directory) yield* move(before?.directory, directory)
          return occupant
        }),
      )

    const shape: PresenceShape = {
      shellCd: (pid, directory, at) => Effect.asVoid(record("shell", pid, directory, at)),
      enter: (pid, directory) => record("session", pid, directory),
      leave: (pid, directory) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const left = [...occupants].filter(
              ([, o]) =>
                o.kind === "session" &&
                o.pid === pid &&
                (directory === undefined || o.directory === directory),
            )
            for (const [key] of left) occupants.delete(key)
            for (const [, o] of left) yield* move(o.directory, undefined)
            yield* sweepLocked
            return left.map(([, o]) => o)
          }),
        ),
      list: lock.withPermits(1)(
        Effect.zipRight(
          sweepLocked,
          Effect.sync(() => [...occupants.values()]),
        ),
      ),
      sweep: lock.withPermits(1)(sweepLocked),
      takeNotices: Effect.sync(() => notices.splice(0)),
      pendingStops: Effect.sync(() => [...pending].map(([id]) => id)),
    }
    // a shell killed without a word is noticed here at the latest
    yield* Effect.forkScoped(
      shape.sweep.pipe(
        Effect.catchAllCause((cause) => Effect.logError("sweeping shells and sessions failed", cause)),
        Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
      ),
    )
    return shape
  })

export const presenceLayer = <E, R>(deps: Effect.Effect<PresenceDeps, E, R>) =>
  Layer.scoped(Presence, Effect.flatMap(deps, makePresence))
