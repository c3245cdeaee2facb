import { Console, Effect, Option, Schedule } from "effect"
import { SupervisorStatus } from "../../domain/CliOutput.js"
import { PLAIN_HTTP_WARNING } from "../../host/tcp.js"
import { isExitedState, readStat } from "../../process/procfs.js"
import { stateDir, statePaths } from "../../state/paths.js"
import {
  awaitStart,
  isUp,
  type NotRunning,
  SupervisorClient,
  spawnBackgroundSupervisor,
  supervisorClientLayer,
} from "../client.js"
import { keptListenerEnv, nonLoopbackUrls } from "../keptListeners.js"
import { ExitCode, exitWith, green, printJson } from "../output.js"
import { formatUptime } from "../table.js"

// another version answers too: these commands are how it is stopped or replaced
const connected = <A, E, R>(f: Effect.Effect<A, E, R>) =>
  Effect.provide(f, supervisorClientLayer({ autoStart: false, checkVersion: false }))
const paths = () => statePaths(stateDir(process.env))

// A zombie counts as gone: the supervisor is nobody's child once its CLI exited.
const processGone = (pid: number) =>
  Effect.sync(() => {
    const stat = readStat(pid)
    return stat === undefined || isExitedState(stat.state)
  })

/**
 * Asks the supervisor to exit, first stopping its daemons or (`keepDaemons`) leaving them running
 * for the next supervisor to adopt; returns once its process is gone (at most 60 s).
 */
const stopSupervisor = (keepDaemons: boolean) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const { pid } = yield* c.api.cli.info({ urlParams: {} }).pipe(Effect.orDie)
    yield* c.api.cli.shutdown({ urlParams: keepDaemons ? { keep_daemons: "true" } : {} }).pipe(Effect.orDie)
    yield* processGone(pid).pipe(
      Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (gone) => gone }),
      Effect.timeout("60 seconds"),
      Effect.ignore,
    )
    return c.socket
  })

/** The running supervisor's listeners, as the variables that open them again (none if it does not answer). */
const runningListeners = connected(
  Effect.flatMap(SupervisorClient, (c) => c.api.cli.info({ urlParams: {} })),
).pipe(
  Effect.map(keptListenerEnv),
  Effect.orElseSucceed((): Record<string, string> => ({})),
)

/** The spec's plain-HTTP warning for each listener of the started supervisor beyond loopback. */
const warnNonLoopback = connected(
  Effect.flatMap(SupervisorClient, (c) => c.api.cli.info({ urlParams: {} })),
).pipe(
  Effect.flatMap((info) =>
    Effect.forEach(nonLoopbackUrls(info), (url) =>
      Console.error(PLAIN_HTTP_WARNING.replace("this listener", `the listener ${url}`)),
    ),
  ),
  Effect.ignore,
)

/**
 * `supervisor supervisor start [--force] [--boot]`: starts the supervisor in the background
 * (`--boot`: it starts the boot_start daemons). A restart
 * (`--force`) keeps the running supervisor's listeners (web UI port and path, API port) unless
 * the flags or the environment say otherwise.
 */
export const start = (
  force: boolean,
  webPort: Option.Option<number>,
  webPath: Option.Option<string>,
  boot = false,
) =>
  Effect.gen(function* () {
    const p = paths()
    const up = yield* isUp(p.socket)
    if (up && !force) return yield* Console.log(`the supervisor is already running (${p.socket})`)
    let kept: Record<string, string> = {}
    if (up) {
      kept = yield* runningListeners
      // a restart of the supervisor, not of the daemons: the new one adopts them
      yield* connected(stopSupervisor(true)).pipe(Effect.catchAll(() => Effect.void))
      yield* waitForSocketGone(p.socket)
    }
    const started = yield* spawnBackgroundSupervisor(
      {
        ...kept,
        ...process.env,
        ...(Option.isSome(webPort) ? { SUPERVISOR_WEB_PORT: String(webPort.value) } : {}),
        ...(Option.isSome(webPath) ? { SUPERVISOR_WEB_PATH: webPath.value } : {}),
      },
      boot ? ["--boot"] : [],
    )
    const outcome = yield* awaitStart(p.socket, started, "15 seconds")
    if (outcome._tag === "Exited") {
      // its own message (bad settings, a refused address): the reason, at once
      yield* Console.error(outcome.output === "" ? "error: the supervisor exited at start" : outcome.output)
      yield* Console.error(`the supervisor exited at start; its log: ${p.supervisorLog}`)
      return yield* exitWith(ExitCode.failure)
    }
    if (outcome._tag === "TimedOut") {
      yield* Console.error(`the supervisor did not start within 15 s; see ${p.supervisorLog}`)
      return yield* exitWith(ExitCode.failure)
    }
    yield* warnNonLoopback
    yield* Console.log(
      up
        ? `${green("✓")} supervisor restarted (${p.socket}); the daemons it ran keep running`
        : `${green("✓")} supervisor started (${p.socket})`,
    )
  })

/** Polls until nothing accepts connections on the socket any more (at most 30 s). */
const waitForSocketGone = (socket: string) =>
  isUp(socket).pipe(
    Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (up) => !up }),
    Effect.timeout("30 seconds"),
    Effect.ignore,
  )

/** `supervisor supervisor stop`: stops every daemon and the supervisor. */
export const stop = () =>
  connected(stopSupervisor(false)).pipe(
    Effect.flatMap((socket) =>
      Effect.gen(function* () {
        yield* waitForSocketGone(socket)
        yield* Console.log(`${green("✓")} supervisor stopped`)
      }),
    ),
    Effect.catchTag("NotRunning", () => Console.log("the supervisor is not running")),
    Effect.catchAll((e) =>
      Console.error(`error: ${String(e)}`).pipe(Effect.zipRight(exitWith(ExitCode.failure))),
    ),
  )

/** `supervisor supervisor status`: is it running? pid, version, uptime, socket. */
export const status = (json: boolean) =>
  connected(
    Effect.gen(function* () {
      const c = yield* SupervisorClient
      const info = yield* c.api.cli.info({ urlParams: {} }).pipe(Effect.orDie)
      if (json) return yield* printJson(SupervisorStatus, { running: true, ...info })
      yield* Console.log(`supervisor ${info.version} is running`)
      yield* Console.log(`  pid      ${info.pid}`)
      yield* Console.log(`  uptime   ${formatUptime(info.uptime_secs)}`)
      yield* Console.log(`  socket   ${info.socket}`)
      yield* Console.log(`  state    ${info.state_dir}`)
      yield* Console.log(`  daemons  ${info.daemons}`)
      yield* Console.log(`  web      ${info.web_url ?? "off"}`)
      if (info.api_url !== null) yield* Console.log(`  api      ${info.api_url}/api`)
      if (info.proxy_url !== undefined)
        yield* Console.log(
          `  proxy    ${info.proxy_url}${info.proxy_tld === undefined ? "" : ` (<slug>.${info.proxy_tld})`}`,
        )
      if (info.proxy_problem !== undefined) yield* Console.log(`  proxy    ${info.proxy_problem}`)
      // an invalid file: the last good configuration stays in force, nothing is stopped
      for (const p of info.config_problems) {
        const what = p.namespace === null ? p.dir : `${p.namespace} (${p.dir})`
        yield* Console.log(`  config   ${what}: invalid, the last good configuration stays in force`)
        for (const line of p.problem.split("\n")) yield* Console.log(`    ${line}`)
      }
      // a full or read-only disk: the supervisor runs on, and says what fails and the fix
      for (const p of info.storage_problems) {
        const count =
          p.failed_writes === 0
            ? ""
            : ` (${p.failed_writes} failed write(s) since ${new Date(p.since).toLocaleTimeString()})`
        yield* Console.log(`  storage  ${p.message}${count}`)
      }
    }),
  ).pipe(
    Effect.catchTag("NotRunning", (e: NotRunning) =>
      json
        ? printJson(SupervisorStatus, { running: false, socket: paths().socket }).pipe(
            Effect.zipRight(exitWith(ExitCode.failure)),
          )
        : Console.log(e.message).pipe(Effect.zipRight(exitWith(ExitCode.failure))),
    ),
    Effect.catchAll((e) =>
      Console.error(`error: ${"message" in e ? e.message : String(e)}`).pipe(
        Effect.zipRight(exitWith(ExitCode.failure)),
      ),
    ),
  )
