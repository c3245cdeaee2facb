import { Deferred, Effect, Exit, FiberId, Option } from "effect"
import type { ExitStatus } from "./ProcessService.js"

/**
 * How our own child's exit is told (src/process/spawn.ts): `exit` for a fiber that waits for it,
 * `whenExited` for a wait with a timer beside it that needs no fiber of its own (`exitWithin`).
 */
export interface ExitNotice {
  readonly exit: Effect.Effect<ExitStatus>
  /** Calls `f` once the child has exited (at once if it has); the function returned unregisters it. */
  readonly whenExited: (f: (status: ExitStatus) => void) => () => void
  /** Says the child exited, as it is reaped (only the first call counts). */
  readonly done: (status: ExitStatus) => void
}

export const makeExitNotice = (): ExitNotice => {
  const exited = Deferred.unsafeMake<ExitStatus>(FiberId.none)
  let status: ExitStatus | undefined
  const listeners = new Set<(status: ExitStatus) => void>()
  return {
    exit: Deferred.await(exited),
    whenExited: (f) => {
      if (status !== undefined) {
        f(status)
        return () => {}
      }
      const own = (s: ExitStatus) => f(s) // one entry per call, even for the same function
      listeners.add(own)
      return () => {
        listeners.delete(own)
      }
    },
    done: (s) => {
      if (status !== undefined) return
      status = s
      Deferred.unsafeDone(exited, Exit.succeed(s))
      for (const f of listeners) f(s)
      listeners.clear()
    },
  }
}

/** The longest wait a Node timer takes (a longer one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The exit, or none once `ms` have passed: the exit's callback or a timer resumes the wait, where
 * `Effect.timeoutOption` would race two fibers. Interrupted, it leaves neither behind.
 */
export const exitWithin = (
  whenExited: (f: (status: ExitStatus) => void) => () => void,
  ms: number,
): Effect.Effect<Option.Option<ExitStatus>> =>
  Effect.async<Option.Option<ExitStatus>>((resume) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let settled = false
    const off = whenExited((status) => {
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      resume(Effect.succeed(Option.some(status)))
    })
    if (settled) return
    timer = setTimeout(() => {
      off()
      resume(Effect.succeedNone)
    }, ms)
    return Effect.sync(() => {
      off()
      clearTimeout(timer)
    })
  })
