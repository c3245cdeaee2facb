import * as nodePath from "node:path"
import { Context, Effect, Layer, PubSub, type Queue, Schedule, type Scope } from "effect"
import { codeOf, fixFor, type StorageArea, type StorageProblem, throwInjected } from "./storageFaults.js"

export type { StorageArea, StorageProblem } from "./storageFaults.js"

/** A file of the supervisor's storage started failing (`Failing`), or is writable again (`Recovered`). */
export type StorageChange =
  | {
      readonly _tag: "Failing"
      /** `write`, or `read` for a state file found corrupt at start. */
      readonly operation: "write" | "read"
      readonly problem: StorageProblem
    }
  | { readonly _tag: "Recovered"; readonly problem: StorageProblem; readonly at: number }

/**
 * What is wrong with the supervisor's storage (its state file, the log directory, its own log):
 * failed writes are counted per file until one succeeds again, for `supervisor supervisor status`,
 * the API and the event stream. Its recording calls are synchronous: the log writers and the
 * process's own stderr sink call them from synchronous code.
 */
export interface StorageHealthShape {
  /**
   * Counts a failed write of `file`. `probe`, if given, writes the line saying that writes work
   * again (it throws while they do not): it is tried every second until it goes through.
   */
  readonly failed: (
    area: StorageArea,
    file: string,
    error: unknown,
    probe?: (over: StorageProblem) => void,
  ) => void
  /** A write of `file` succeeded: its problem (if any) is over, and returned (for a line saying so). */
  readonly ok: (file: string) => StorageProblem | undefined
  /** A state file found corrupt at start and set aside: said until the supervisor restarts. */
  readonly note: (problem: StorageProblem) => void
  readonly problems: () => ReadonlyArray<StorageProblem>
  /** The problem of a daemon's log files (`<dir>/<safe path>.out`, `.idx`, ...), if any. */
  readonly logProblemOf: (safePath: string) => StorageProblem | undefined
  /** Each change from now on (and up to the last 64 before), in the caller's scope. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<StorageChange>, never, Scope.Scope>
  /** Tries every failing file's probe once (the live service does it every second). */
  readonly probe: Effect.Effect<void>
}

export class StorageHealth extends Context.Tag("supervisor/StorageHealth")<
  StorageHealth,
  StorageHealthShape
>() {}

const what = (area: StorageArea) =>
  area === "state" ? "the state file" : area === "logs" ? "the log file" : "the supervisor log"

/** The record and its changes, without the timer: `probe` is run by whoever owns it. */
export const makeStorageHealth = (now: () => number = Date.now) =>
  Effect.gen(function* () {
    // the last changes are replayed to a late subscriber (the event bridge starts after the state store)
    const changes = yield* Effect.acquireRelease(
      PubSub.unbounded<StorageChange>({ replay: 64 }),
      PubSub.shutdown,
    )
    const problems = new Map<string, StorageProblem>()
    const probes = new Map<string, (over: StorageProblem) => void>()
    const recovered = (problem: StorageProblem) => {
      changes.unsafeOffer({ _tag: "Recovered", problem, at: now() })
    }

    const probeNow = () => {
      for (const [file, probe] of probes) {
        const known = problems.get(file)
        if (known === undefined) {
          probes.delete(file)
          continue
        }
        try {
          throwInjected(file)
          probe(known)
        } catch {
          continue // still failing: counted by the next real write
        }
        problems.delete(file)
        probes.delete(file)
        recovered(known)
      }
    }

    const shape: StorageHealthShape = {
      failed: (area, file, error, probe) => {
        if (probe !== undefined) probes.set(file, probe)
        const code = codeOf(error)
        const known = problems.get(file)
        const problem: StorageProblem = {
          area,
          file,
          code,
          message: `cannot write ${what(area)} ${file} (${code}); ${fixFor(code, file)}`,
          since: known?.since ?? now(),
          failed_writes: (known?.failed_writes ?? 0) + 1,
        }
        problems.set(file, problem)
        if (known === undefined || known.code !== code)
          changes.unsafeOffer({ _tag: "Failing", operation: "write", problem })
      },
      ok: (file) => {
        if (problems.size === 0) return undefined
        const known = problems.get(file)
        if (known === undefined || known.code === "corrupt") return undefined
        problems.delete(file)
        probes.delete(file)
        recovered(known)
        return known
      },
      note: (problem) => {
        problems.set(`${problem.file}#${problem.code}`, problem)
        changes.unsafeOffer({ _tag: "Failing", operation: "read", problem })
      },
      problems: () => [...problems.values()],
      logProblemOf: (safePath) => {
        if (problems.size === 0) return undefined
        const prefix = `${nodePath.sep}${safePath}.`
        for (const p of problems.values()) if (p.area === "logs" && p.file.includes(prefix)) return p
        return undefined
      },
      subscribe: PubSub.subscribe(changes),
      probe: Effect.sync(probeNow),
    }
    return shape
  })

/**
 * The live service, for as long as its scope: a fiber of that scope tries the failing files'
 * probes every second, so that a file nobody writes to any more recovers too.
 */
export const StorageHealthLive = Layer.scoped(
  StorageHealth,
  Effect.gen(function* () {
    const health = yield* makeStorageHealth()
    yield* health.probe.pipe(Effect.repeat(Schedule.spaced("1 second")), Effect.forkScoped)
    return health
  }),
)
