import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Context, Data, type Duration, Effect, Layer, Schedule } from "effect"
import { Api } from "../api/Api.js"
import { CLI_HEADER, NOTICES_HEADER, printNotices } from "../domain/cliNotices.js"
import { VERSION } from "../domain/version.js"
import { lockHeld } from "../host/lock.js"
import { withMallocTuning } from "../host/mallocTuning.js"
import { supervisorNodeFlags } from "../host/nodeFlags.js"
import { stateDir, statePaths } from "../state/paths.js"
import { isRemote } from "./remote.js"
import { remoteClient } from "./remoteClient.js"

export class NotRunning extends Data.TaggedError("NotRunning")<{ readonly message: string }> {}
export class VersionMismatch extends Data.TaggedError("VersionMismatch")<{ readonly message: string }> {}

/** The typed client of the supervisor's API over its Unix socket, and a raw client for streams. */
export class SupervisorClient extends Context.Tag("supervisor/SupervisorClient")<
  SupervisorClient,
  {
    readonly api: Effect.Effect.Success<ReturnType<typeof makeApiClient>>
    readonly http: HttpClient.HttpClient
    readonly socket: string
  }
>() {}

const makeApiClient = () => HttpApiClient.make(Api, { baseUrl: "http://localhost" })

/** An HTTP agent whose every connection goes to the Unix socket. */
const socketAgent = (socket: string) =>
  Layer.scoped(
    NodeHttpClient.HttpAgent,
    Effect.map(NodeHttpClient.makeAgent({ keepAlive: true }), (agent) => {
      const connect = () => net.createConnection({ path: socket })
      Object.assign(agent.http, { createConnection: connect })
      return agent
    }),
  )

export const isUp = (socket: string) =>
  Effect.async<boolean>((resume) => {
    const s = net.createConnection({ path: socket })
    s.once("connect", () => {
      s.destroy()
      resume(Effect.succeed(true))
    })
    s.once("error", () => resume(Effect.succeed(false)))
  })

/** A supervisor started in the background: its exit, and where its output starts in its log. */
export interface BackgroundSupervisor {
  /** Resolves once the process has exited (a supervisor that started never does while we wait). */
  readonly exited: Promise<void>
  readonly log: string
  /** The log's size before the start: what this supervisor wrote comes after it. */
  readonly logOffset: number
  readonly stateDir: string
}

/** Starts `supervisor supervisor run` in the background, detached, its output in the supervisor log. */
export const spawnBackgroundSupervisor = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string> = []) =>
  Effect.sync((): BackgroundSupervisor => {
    const paths = statePaths(stateDir(env))
    fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 })
    const log = fs.openSync(paths.supervisorLog, "a", 0o600)
    try {
      const logOffset = fs.fstatSync(log).size
      const child = spawn(
        process.execPath,
        [...supervisorNodeFlags, process.argv[1]!, "supervisor", "run", ...args],
        {
          detached: true,
          stdio: ["ignore", log, log],
          env: withMallocTuning(env),
          cwd: "/",
        },
      )
      const exited = new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.once("error", () => resolve())
      })
      child.unref()
      return { exited, log: paths.supervisorLog, logOffset, stateDir: paths.dir }
    } finally {
      fs.closeSync(log)
    }
  })

/** Waits until the socket accepts connections (or the deadline passes). */
export const waitUntilUp = (socket: string, timeout: Duration.DurationInput) =>
  isUp(socket).pipe(
    // With a schedule, repeat yields the schedule's output (a count, 0 when the first probe
    // succeeds), not the probe's: once it ends, the socket is up.
    Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (up) => up }),
    Effect.timeoutTo({ duration: timeout, onTimeout: () => false, onSuccess: () => true }),
  )

/** How a background start ended: up, the process gone first (with what it logged), or no answer in time. */
export type StartOutcome =
  | { readonly _tag: "Up" }
  | { readonly _tag: "Exited"; readonly output: string }
  | { readonly _tag: "TimedOut" }

/** The last lines the supervisor wrote to its log since `from` (at most 20). */
const logSince = (log: string, from: number): string => {
  try {
    const text = fs.readFileSync(log).subarray(from).toString("utf8").trim()
    return text.split("\n").slice(-20).join("\n")
  } catch {
    return ""
  }
}

/**
 * Waits for a supervisor started in the background: up once its socket answers; a process that
 * exits first (bad settings, a port it may not bind) is reported at once with its own message,
 * not after the whole timeout.
 */
export const awaitStart = (
  socket: string,
  started: BackgroundSupervisor,
  timeout: Duration.DurationInput,
): Effect.Effect<StartOutcome> =>
  Effect.raceFirst(
    waitUntilUp(socket, timeout).pipe(
      Effect.map((up): StartOutcome => (up ? { _tag: "Up" } : { _tag: "TimedOut" })),
    ),
    Effect.promise(() => started.exited).pipe(
      // Another CLI's supervisor won the lock: it answers soon (or the timeout tells).
      Effect.zipRight(lockHeld(started.stateDir)),
      Effect.flatMap((held) => (held ? Effect.never : isUp(socket))),
      Effect.map(
        (up): StartOutcome =>
          up ? { _tag: "Up" } : { _tag: "Exited", output: logSince(started.log, started.logOffset) },
      ),
    ),
  )

export interface ConnectOptions {
  /**
   * Start a supervisor that is down: true, false for a command that never starts one (`web`,
   * `supervisor stop`), or "setting-off" when settings.supervisor.auto_start = false said no.
   */
  readonly autoStart: boolean | "setting-off"
  readonly env?: NodeJS.ProcessEnv
  /**
   * Refuse a supervisor of another version (default true). Off for the commands that manage
   * the supervisor itself: `supervisor supervisor start --force` is how it is upgraded.
   */
  readonly checkVersion?: boolean
}

/**
 * Connects to the supervisor of this user's state directory, starting it in the
 * background first when it is not running (unless auto-start is off). Two CLIs
 * racing here end up on the same supervisor: only one can take its lock.
 */
export const supervisorClientLayer = (options: ConnectOptions) =>
  Layer.scoped(
    SupervisorClient,
    Effect.gen(function* () {
      const env = options.env ?? process.env
      // a supervisor at a URL (`--url`): never this machine's, never started from here
      if (isRemote(env)) return yield* remoteClient(env, options.checkVersion !== false)
      const paths = statePaths(stateDir(env))
      if (!(yield* isUp(paths.socket))) {
        if (options.autoStart !== true) {
          const why =
            options.autoStart === "setting-off"
              ? ", and auto-start is disabled (settings.supervisor.auto_start = false)"
              : ""
          return yield* new NotRunning({
            message: `the supervisor is not running (no socket at ${paths.socket})${why}: start it with \`supervisor supervisor start\``,
          })
        }
        const spawnedAt = Date.now()
        const outcome = yield* awaitStart(paths.socket, yield* spawnBackgroundSupervisor(env), "15 seconds")
        if (outcome._tag === "Exited")
          return yield* new NotRunning({
            message: `the supervisor exited at start: ${outcome.output.replace(/^error: /gm, "") || "it wrote nothing"} (its log: ${paths.supervisorLog})`,
          })
        if (outcome._tag === "TimedOut") {
          return yield* new NotRunning({
            message: `the supervisor did not start (gave up after ${Date.now() - spawnedAt} ms); see its log: ${paths.supervisorLog}`,
          })
        }
      }
      // Built in this layer's scope: the agent must outlive this function (EFFECT-V3.md §13.1).
      const transport = yield* Layer.build(
        NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(socketAgent(paths.socket))),
      )
      // every request says it comes from the CLI; the autostop notices answered are printed on stderr
      const http = Context.get(transport, HttpClient.HttpClient).pipe(
        HttpClient.mapRequest(HttpClientRequest.setHeader(CLI_HEADER, "1")),
        HttpClient.tap((response) => Effect.sync(() => printNotices(response.headers[NOTICES_HEADER]))),
      )
      const api = yield* makeApiClient().pipe(Effect.provideService(HttpClient.HttpClient, http))
      // the version check; the supervisor notes the project this CLI runs in
      const info = yield* api.cli.info({ urlParams: { cwd: process.cwd() } }).pipe(Effect.orDie)
      if (info.version !== VERSION && options.checkVersion !== false) {
        return yield* new VersionMismatch({
          message: `the running supervisor is version ${info.version} but this CLI is ${VERSION}; restart it with \`supervisor supervisor start --force\``,
        })
      }
      return { api, http, socket: paths.socket }
    }),
  )
