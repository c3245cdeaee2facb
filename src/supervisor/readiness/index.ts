import { Clock, Context, Duration, Effect, Layer, Schedule, type Stream } from "effect"
import { type ExitStatus, ProcessService, type ProcessServiceShape } from "../../process/ProcessService.js"
import type { ProbeAnswer, StartAttempt } from "./answer.js"
import { cmdAnswer, type ReadyCommand } from "./cmd.js"
import { waitDelay } from "./delay.js"
import { httpAnswer, startHttpAnswer } from "./http.js"
import { waitForOutput } from "./output.js"
import { type ReadinessCheck, timedOutMessage } from "./plan.js"
import { type PortAnswer, probePort } from "./port.js"

export type { ProbeAnswer, StartAttempt } from "./answer.js"
export type { ReadyCommand } from "./cmd.js"
export {
  checkKey,
  DEFAULT_READY_DELAY_SECONDS,
  describeCheck,
  describeChecks,
  type ReadinessCheck,
  readinessChecks,
} from "./plan.js"
export type { PortAnswer } from "./port.js"
export { renderCheck, renderChecks, type TemplateScope } from "./template.js"

/**
 * One attempt of each polled check (readiness and health): http and cmd answer whether it passed
 * and what they saw, port what it saw. They never fail; an error is "not yet".
 */
export interface ReadinessProbesShape {
  readonly http: (
    url: string,
    accepted: ReadonlyArray<number>,
    attemptTimeout: Duration.Duration,
  ) => Effect.Effect<ProbeAnswer>
  /** `ownPids`: the daemon's process tree now; a listener of another process is `Foreign`. */
  readonly port: (
    port: number,
    ownPids: Effect.Effect<ReadonlyArray<number>>,
    attemptTimeout: Duration.Duration,
  ) => Effect.Effect<PortAnswer>
  readonly cmd: (cmd: ReadyCommand, attemptTimeout: Duration.Duration) => Effect.Effect<ProbeAnswer>
  /**
   * `http` started by a callback, without a fiber, for health checks (they run every few seconds
   * for every checked daemon). Probes without it have their `http` run as an effect.
   */
  readonly startHttp?: (
    url: string,
    accepted: ReadonlyArray<number>,
    attemptTimeout: Duration.Duration,
  ) => StartAttempt
}

/** The probes the supervisor uses: the real ones (`ReadinessProbesLive`), or fakes in tests. */
export class ReadinessProbes extends Context.Tag("supervisor/ReadinessProbes")<
  ReadinessProbes,
  ReadinessProbesShape
>() {}

/** The real probes; a `ready_cmd` attempt past its time is killed through the process service. */
export const liveProbes = (processes: Pick<ProcessServiceShape, "signalGroup">): ReadinessProbesShape => ({
  http: httpAnswer,
  startHttp: startHttpAnswer,
  port: probePort,
  cmd: cmdAnswer(processes),
})
export const ReadinessProbesLive = Layer.effect(ReadinessProbes, Effect.map(ProcessService, liveProbes))

/** How a daemon's wait for readiness ended. */
export type ReadyResult =
  | { readonly _tag: "Ready"; readonly check: ReadinessCheck }
  | { readonly _tag: "Exited"; readonly status: ExitStatus }
  /** Every check has a timeout and every one of them passed: the daemon must be killed. */
  | { readonly _tag: "TimedOut"; readonly message: string }
  /** A check can never pass (its port is another process's): the daemon must be killed. */
  | { readonly _tag: "Failed"; readonly message: string }

export interface ReadinessEnvironment {
  readonly probes: ReadinessProbesShape
  /** `settings.supervisor.ready_check_interval`: the pause between two attempts of a polled check. */
  readonly interval: Duration.Duration
  /** `settings.supervisor.http_client_timeout`: how long one `ready_http` attempt waits (default: `attemptTimeout`). */
  readonly httpTimeout?: Duration.Duration
  /** The daemon's output lines from its first line on (for `ready_output`). */
  readonly lines: Stream.Stream<string, unknown>
  /** The daemon's shell, dir, environment and user (for `ready_cmd`). */
  readonly command: Omit<ReadyCommand, "run">
  /**
   * The pids of a daemon's process tree now (its process, its descendants, its group): of the
   * daemon being started when `owner` is undefined or itself, else of daemon `owner` (none when
   * it does not run).
   */
  readonly treeOf: (owner: string | undefined) => Effect.Effect<ReadonlyArray<number>>
  /** Whether the daemon's own process is alive now: a check passes only while it is. */
  readonly alive: Effect.Effect<boolean>
}

/**
 * How long a port must be seen held by another process before the start fails: the daemon gets
 * that long to fail on its own, with its own message.
 */
export const FOREIGN_PORT_GRACE = Duration.seconds(1)

/** One attempt may take the interval, and at least 5 s: a slow answer is still an answer. */
export const attemptTimeout = (interval: Duration.Duration): Duration.Duration =>
  Duration.max(interval, Duration.seconds(5))

class CheckTimedOut {
  readonly _tag = "CheckTimedOut"
}

class CheckFailed {
  readonly _tag = "CheckFailed"
  constructor(readonly message: string) {}
}

/** Why a port held by another process can never be the daemon's. */
export const foreignPortMessage = (
  id: string,
  port: number,
  answer: Extract<PortAnswer, { _tag: "Foreign" }>,
) =>
  answer.holder === undefined
    ? `port ${port} is held by a process not started by ${id} (its owner cannot be inspected: another user's?); stop it or give ${id} another port`
    : `port ${port} is held by another process (pid ${answer.holder.pid}, ${answer.holder.name}) not started by ${id}; stop it or give ${id} another port`

/**
 * `ready_port`: polled until the daemon's tree listens on the port. Seen held by another
 * process for `FOREIGN_PORT_GRACE` (the daemon cannot bind it), the check fails.
 */
const waitForPort = (
  id: string,
  port: number,
  owner: string | undefined,
  env: ReadinessEnvironment,
  perAttempt: Duration.Duration,
): Effect.Effect<void, CheckFailed> =>
  Effect.gen(function* () {
    let foreignSince: number | undefined
    const ownPids = env.treeOf(owner)
    for (;;) {
      const answer = yield* env.probes.port(port, ownPids, perAttempt)
      if (answer._tag === "Listening") return
      if (answer._tag === "Foreign") {
        const now = yield* Clock.currentTimeMillis
        foreignSince ??= now
        if (now - foreignSince >= Duration.toMillis(FOREIGN_PORT_GRACE))
          return yield* Effect.fail(new CheckFailed(foreignPortMessage(owner ?? id, port, answer)))
      } else foreignSince = undefined
      yield* Effect.sleep(env.interval)
    }
  })

/** Repeats `probe` every `interval` (first attempt at once) until it passes. */
const poll = (probe: Effect.Effect<ProbeAnswer>, interval: Duration.Duration): Effect.Effect<void> =>
  probe.pipe(Effect.repeat({ schedule: Schedule.spaced(interval), until: (a) => a.ok }), Effect.asVoid)

/** Completes when the check passes; fails when it never can (its timeout is applied by the caller). */
const runCheck = (
  id: string,
  check: ReadinessCheck,
  env: ReadinessEnvironment,
): Effect.Effect<void, CheckFailed> => {
  const perAttempt = attemptTimeout(env.interval)
  switch (check._tag) {
    case "delay":
      return waitDelay(check.seconds)
    case "output":
      return waitForOutput(env.lines, new RegExp(check.pattern))
    case "http":
      return poll(env.probes.http(check.url, check.status, env.httpTimeout ?? perAttempt), env.interval)
    case "port":
      return typeof check.port === "number"
        ? waitForPort(id, check.port, check.owner, env, perAttempt)
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
  const racers = checks.map((check): Effect.Effect<ReadyResult, CheckTimedOut> => {
    // A failed check ends the race as a result; a timed-out one only stops counting.
    const run = runCheck(id, check, env).pipe(
      Effect.as<ReadyResult>({ _tag: "Ready", check }),
      Effect.catchTag("CheckFailed", (e) =>
        Effect.succeed<ReadyResult>({ _tag: "Failed", message: e.message }),
      ),
    )
    const timeout = "timeout" in check ? check.timeout : undefined
    return timeout === undefined
      ? run
      : run.pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => new CheckTimedOut() }))
  })
  const ready: Effect.Effect<ReadyResult> = Effect.raceAll(racers).pipe(
    Effect.orElseSucceed(
      // raceAll fails only once every racer failed: each had a timeout, and each passed.
      (): ReadyResult => ({ _tag: "TimedOut", message: timedOutMessage(id, checks) }),
    ),
    // A check passes only while the daemon's own process lives: one that died (its exit not
    // heard yet) is not ready, and its exit, coming next, says why.
    Effect.flatMap(
      (result): Effect.Effect<ReadyResult> =>
        result._tag !== "Ready"
          ? Effect.succeed(result)
          : Effect.flatMap(env.alive, (alive) => (alive ? Effect.succeed(result) : Effect.never)),
    ),
  )
  return Effect.raceFirst(exit.pipe(Effect.map((status): ReadyResult => ({ _tag: "Exited", status }))), ready)
}
