import { Context, Duration, Effect, Layer, Schedule, type Stream } from "effect"
import type { ExitStatus } from "../../process/ProcessService.js"
import { probeCmd, type ReadyCommand } from "./cmd.js"
import { waitDelay } from "./delay.js"
import { probeHttp } from "./http.js"
import { waitForOutput } from "./output.js"
import { type ReadinessCheck, timedOutMessage } from "./plan.js"
import { probePort } from "./port.js"

export type { ReadyCommand } from "./cmd.js"
export {
  checkKey,
  DEFAULT_READY_DELAY_SECONDS,
  describeCheck,
  describeChecks,
  type ReadinessCheck,
  readinessChecks,
} from "./plan.js"
export { type PortLookup, renderChecks } from "./template.js"

/** One attempt of each polled check: true = ready. They never fail; an error is "not yet". */
export interface ReadinessProbesShape {
  readonly http: (
    url: string,
    accepted: ReadonlyArray<number>,
    attemptTimeout: Duration.Duration,
  ) => Effect.Effect<boolean>
  readonly port: (port: number, attemptTimeout: Duration.Duration) => Effect.Effect<boolean>
  readonly cmd: (cmd: ReadyCommand, attemptTimeout: Duration.Duration) => Effect.Effect<boolean>
}

/** The probes the supervisor uses: the real ones (`ReadinessProbesLive`), or fakes in tests. */
export class ReadinessProbes extends Context.Tag("supervisor/ReadinessProbes")<
  ReadinessProbes,
  ReadinessProbesShape
>() {}

export const liveProbes: ReadinessProbesShape = { http: probeHttp, port: probePort, cmd: probeCmd }
export const ReadinessProbesLive = Layer.succeed(ReadinessProbes, liveProbes)

/** How a daemon's wait for readiness ended. */
export type ReadyResult =
  | { readonly _tag: "Ready"; readonly check: ReadinessCheck }
  | { readonly _tag: "Exited"; readonly status: ExitStatus }
  /** Every check has a timeout and every one of them passed: the daemon must be killed. */
  | { readonly _tag: "TimedOut"; readonly message: string }

export interface ReadinessEnvironment {
  readonly probes: ReadinessProbesShape
  /** `settings.supervisor.ready_check_interval`: the pause between two attempts of a polled check. */
  readonly interval: Duration.Duration
  /** The daemon's output lines from its first line on (for `ready_output`). */
  readonly lines: Stream.Stream<string, unknown>
  /** The daemon's shell, dir, environment and user (for `ready_cmd`). */
  readonly command: Omit<ReadyCommand, "run">
}

/** One attempt may take the interval, and at least 5 s: a slow answer is still an answer. */
export const attemptTimeout = (interval: Duration.Duration): Duration.Duration =>
  Duration.max(interval, Duration.seconds(5))

class CheckTimedOut {
  readonly _tag = "CheckTimedOut"
}

/** Repeats `probe` every `interval` (first attempt at once) until it answers true. */
const poll = (probe: Effect.Effect<boolean>, interval: Duration.Duration): Effect.Effect<void> =>
  probe.pipe(Effect.repeat({ schedule: Schedule.spaced(interval), until: (ok) => ok }), Effect.asVoid)

/** Completes when the check passes; never fails (its timeout is applied by the caller). */
const runCheck = (check: ReadinessCheck, env: ReadinessEnvironment): Effect.Effect<void> => {
  const perAttempt = attemptTimeout(env.interval)
  switch (check._tag) {
    case "delay":
      return waitDelay(check.seconds)
    case "output":
      return waitForOutput(env.lines, new RegExp(check.pattern))
    case "http":
      return poll(env.probes.http(check.url, check.status, perAttempt), env.interval)
    case "port":
      return typeof check.port === "number"
        ? poll(env.probes.port(check.port, perAttempt), env.interval)
        : Effect.dieMessage(`ready_port ${JSON.stringify(check.port)} was not rendered`)
    case "cmd":
      return poll(env.probes.cmd({ ...env.command, run: check.run }, perAttempt), env.interval)
  }
}

/**
 * Waits until the first of `checks` (templates rendered) passes, or the process exits, or
 * every check has timed out. A check with a `timeout` stops counting once it has passed; the
 * others keep going. Everything runs on the Clock and Schedule, so TestClock drives it.
 */
export const waitUntilReady = (
  id: string,
  checks: ReadonlyArray<ReadinessCheck>,
  env: ReadinessEnvironment,
  exit: Effect.Effect<ExitStatus>,
): Effect.Effect<ReadyResult> => {
  // `ready_delay = 0`: ready once spawned, without a race against the exit or a timer tick.
  const immediate = checks.find((check) => check._tag === "delay" && check.seconds <= 0)
  if (immediate !== undefined) return Effect.succeed({ _tag: "Ready", check: immediate })
  const racers = checks.map((check) => {
    const run = runCheck(check, env).pipe(Effect.as(check))
    const timeout = "timeout" in check ? check.timeout : undefined
    return timeout === undefined
      ? run
      : run.pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => new CheckTimedOut() }))
  })
  const ready: Effect.Effect<ReadyResult> = Effect.raceAll(racers).pipe(
    Effect.match({
      onSuccess: (check): ReadyResult => ({ _tag: "Ready", check }),
      // raceAll fails only once every racer failed: each had a timeout, and each passed.
      onFailure: (): ReadyResult => ({ _tag: "TimedOut", message: timedOutMessage(id, checks) }),
    }),
  )
  return Effect.raceFirst(exit.pipe(Effect.map((status): ReadyResult => ({ _tag: "Exited", status }))), ready)
}
