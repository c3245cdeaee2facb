import { Effect, Either, ExecutionStrategy, Exit, Queue, Scope } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { portEnvironment } from "../../domain/portEnvironment.js"
import { READY_TIMEOUT_STATUS } from "../../domain/StartOutcome.js"
import { inputPath } from "../../process/fifo.js"
import type { ProcessHandle } from "../../process/ProcessService.js"
import { daemonEnvironment, type RunAs, shellArgv } from "../environment.js"
import type { PreparedHealth } from "../health/prepare.js"
import type { HookRun } from "../hooks/fire.js"
import { watchOutput } from "../hooks/onOutput.js"
import type { ResolvedPorts } from "../ports/resolve.js"
import { toolManagerKeys, toolManagerShell, usesToolManager } from "../toolManager.js"
import { resolveDaemonUser } from "../user.js"
import { DaemonCommand } from "./commands.js"
import type { DaemonContext } from "./context.js"

/**
 * One run of a daemon: its process and everything that lives as long as it (the exit watcher,
 * the readiness check, the output hook), all in the run's own scope. Closing the scope with
 * `Exit.void` releases them; closing it by an interruption (the supervisor going away without
 * an orderly stop) also stops the process group, unless the supervisor is detaching.
 */
export interface Run {
  readonly serial: number
  readonly scope: Scope.CloseableScope
  readonly handle: ProcessHandle
  readonly ports: ResolvedPorts
  /** The readiness check passed (or the process was adopted: it was ready before). */
  readonly ready: boolean
  readonly adopted: boolean
  /** The environment and user hooks of this run inherit. */
  readonly hookRun: HookRun
  /** Its health check, started once the run is ready (none when the daemon has none). */
  readonly health: PreparedHealth | undefined
}

/** What a run's side tasks need. */
export interface RunEnvironment {
  readonly ctx: DaemonContext
  readonly def: DaemonDefinition
  /** The lifecycle's scope: a run's scope is a child of it. */
  readonly scope: Scope.Scope
  readonly queue: Queue.Enqueue<DaemonCommand>
}

/** Stops the group of a run whose lifecycle was interrupted (not detaching): recorded as stopped. */
const stopOnInterrupt = (env: RunEnvironment, handle: ProcessHandle) =>
  Effect.gen(function* () {
    if (yield* env.ctx.detaching) return
    const id = env.def.id.qualified
    env.ctx.setCause(id, "shutdown")
    yield* env.ctx.update(id, (r) => ({ ...r, status: { type: "stopping" } }))
    const s = yield* env.ctx.processes.stop(
      handle,
      env.def.config.stop_signal.signal,
      env.def.config.stop_signal.timeout ?? env.ctx.stopTimeout,
    )
    yield* env.ctx.update(id, (r) => ({
      ...r,
      status: { type: "stopped", exit_code: s.code, signal: s.signal },
      pid: null,
      startTime: null,
      handle: null,
    }))
  })

/** Tells the lifecycle when the run's process exits: a fiber of the run's scope waits for it. */
const exitOf = (env: RunEnvironment, serial: number, handle: ProcessHandle) =>
  Effect.flatMap(handle.exit, (status) => Queue.offer(env.queue, DaemonCommand.Exited({ serial, status })))

/**
 * The same through our own child's exit callback where there is one: no fiber waits for the exit
 * of a running daemon (~3 KiB each, docs/benchmarks.md), and none is interrupted at its stop. The
 * callback is unregistered when the run's scope closes; one registered after the exit runs at once.
 */
const tellExit = (env: RunEnvironment, serial: number, handle: ProcessHandle, scope: Scope.Scope) => {
  const whenExited = handle.whenExited
  if (whenExited === undefined) return exitOf(env, serial, handle)
  // uninterruptible: registered and its unregistering in the scope, or neither
  return Effect.uninterruptible(
    Effect.suspend(() => {
      const off = whenExited((status) => {
        env.queue.unsafeOffer(DaemonCommand.Exited({ serial, status }))
      })
      return Scope.addFinalizer(scope, Effect.sync(off))
    }),
  )
}

/**
 * A new child scope of the lifecycle, holding `handle`: closed by an interruption, it stops the
 * group. The release is the scope's own finalizer rather than `Effect.acquireRelease`'s, which
 * puts the acquiring fiber's FiberRefs back around it: a diff and a patch of the whole context,
 * ~80 KB of garbage for each daemon stopped (a fifth of a stop's), for a release needing none.
 */
const runScope = <E>(env: RunEnvironment, acquire: Effect.Effect<ProcessHandle, E>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(env.scope, ExecutionStrategy.sequential)
    const handle = yield* Effect.uninterruptible(
      Effect.tap(acquire, (handle) =>
        Scope.addFinalizerExit(scope, (exit) =>
          Exit.isInterrupted(exit) ? stopOnInterrupt(env, handle) : Effect.void,
        ),
      ),
    ).pipe(Effect.tapError(() => Scope.close(scope, Exit.void)))
    return { scope, handle }
  })

/**
 * Spawns run `serial` (retry `attempt`) of the daemon: ports, user, environment, log files and
 * readiness checks are prepared, the process is spawned and recorded `waiting`, and its side
 * tasks are started in its scope. Left: why it could not be spawned (nothing is left running).
 */
export const spawnRun = (env: RunEnvironment, serial: number, attempt: number) =>
  Effect.gen(function* () {
    const { ctx, def } = env
    const id = def.id.qualified
    const fail = (message: string) => `cannot start daemon ${id}: ${message}`
    const user = resolveDaemonUser({
      daemonUser: def.config.user,
      settingsUser: ctx.settingsUser,
      env: ctx.baseEnv,
      currentUid: process.getuid?.() ?? 0,
    })
    if (user !== undefined && "error" in user) return Either.left(fail(user.error))
    const resolved = yield* Effect.either(ctx.resolvePorts(def))
    if (Either.isLeft(resolved)) return Either.left(fail(resolved.left.message))
    const ports = resolved.right
    yield* ctx.update(id, (r) =>
      r.ports.length === ports.ports.length && r.ports.every((p, i) => p === ports.ports[i])
        ? r
        : { ...r, ports: ports.ports },
    )
    // After the ports: a template naming the daemon itself renders the port this run got; env
    // files are read at each start, so an edit shows in the next run.
    const command = yield* Effect.either(renderRun(ctx, def, attempt, ports.ports))
    if (Either.isLeft(command)) return Either.left(fail(command.left))
    const outputFile = yield* ctx.prepareLogs(id)
    const environment = command.right.environment
    const identity = user !== undefined ? { uid: user.uid, gid: user.gid } : {}
    let shell: ReadonlyArray<string> = shellArgv(ctx.shell)
    if (usesToolManager(def.config.tool_manager, ctx.toolManager.enabled)) {
      const keys = toolManagerKeys(def.id.name, def.config.tool_manager)
      const wrapped = toolManagerShell(ctx.toolManager.bin, shell, environment, def.config.dir, keys)
      if ("error" in wrapped) return Either.left(fail(wrapped.error))
      shell = wrapped.shell
    }
    const runAs: RunAs = { env: environment, ...identity }
    const waitReady = yield* Effect.either(ctx.prepareReadiness(def, runAs))
    if (Either.isLeft(waitReady)) return Either.left(fail(waitReady.left.message))
    const health = yield* Effect.either(ctx.prepareHealth(def, runAs))
    if (Either.isLeft(health)) return Either.left(fail(health.left.message))
    const spawned = yield* Effect.either(
      runScope(
        env,
        ctx.processes.spawn({
          id,
          command: command.right.run,
          shell,
          cwd: def.config.dir,
          env: environment,
          outputFile,
          ...(def.config.pty && { pty: true }),
          ...((def.config.pty || def.config.stdin === "pipe") && { input: inputPath(outputFile) }),
          ...identity,
        }),
      ),
    )
    if (Either.isLeft(spawned)) return Either.left(spawned.left.message)
    const { scope, handle } = spawned.right
    yield* ctx.update(id, (r) => ({
      ...r,
      status: { type: "waiting" },
      pid: handle.pid,
      startTime: handle.startTime,
      startedAt: Date.now(),
      retryCount: attempt,
      handle,
      spawns: (r.spawns ?? 0) + 1,
      readyAt: null,
    }))
    // What the lifecycle hears of this run, in this order: ready (or not in time), from a fiber
    // that ends then, and the exit.
    yield* waitReady.right(handle).pipe(
      Effect.flatMap(
        (result) =>
          result._tag === "Ready"
            ? Queue.offer(env.queue, DaemonCommand.Ready({ serial, check: result.check._tag }))
            : result._tag === "TimedOut"
              ? Queue.offer(
                  env.queue,
                  DaemonCommand.NotReady({
                    serial,
                    message: result.message,
                    cliStatus: READY_TIMEOUT_STATUS,
                  }),
                )
              : result._tag === "Failed"
                ? Queue.offer(
                    env.queue,
                    DaemonCommand.NotReady({ serial, message: result.message, cliStatus: 1 }),
                  )
                : Effect.void, // exited first: said next
      ),
      Effect.zipRight(tellExit(env, serial, handle, scope)),
      Effect.forkIn(scope),
    )
    const onOutput = def.config.hooks.on_output
    if (onOutput !== undefined)
      yield* watchOutput(onOutput, ctx.outputLines(id), (line) =>
        ctx.fireHook(def, "on_output", runAs, { retryCount: attempt, matchedLine: line }),
      ).pipe(Effect.forkIn(scope))
    return Either.right<Run>({
      serial,
      scope,
      handle,
      ports,
      ready: false,
      adopted: false,
      hookRun: runAs,
      health: health.right,
    })
  })

/**
 * The daemon's `run` and environment for a run with `ports`: the supervisor's environment, the
 * env files and top-level `[env]` (read now), its own `env`, then `PORT` and the supervisor's
 * variables (docs/configuration.md, "Environment"), templates rendered; or why it cannot be built.
 */
export const renderRun = (
  ctx: Pick<DaemonContext, "baseEnv" | "lowerEnv" | "renderCommand">,
  def: DaemonDefinition,
  attempt: number,
  ports: ReadonlyArray<number>,
) =>
  Effect.gen(function* () {
    const lower = yield* ctx.lowerEnv(def)
    return yield* ctx
      .renderCommand(def, {
        below: { ...ctx.baseEnv, ...lower },
        environment: (daemonEnv) => ({
          ...daemonEnvironment(ctx.baseEnv, def, attempt, { ...lower, ...daemonEnv }),
          ...portEnvironment(ports),
        }),
      })
      .pipe(Effect.mapError((e) => e.message))
  })

/** The run of a process a previous supervisor started (it was ready then): no readiness, no spawn. */
export const adoptRun = (env: RunEnvironment, serial: number, handle: ProcessHandle) =>
  Effect.gen(function* () {
    // Its hooks get the daemon's `env` rendered as well as it can be now (else as written).
    const hookEnv = yield* renderRun(env.ctx, env.def, 0, []).pipe(
      Effect.map((c) => c.environment),
      Effect.orElseSucceed(() => daemonEnvironment(env.ctx.baseEnv, env.def, 0)),
    )
    // Its health check as well as it can be rendered now (none when it cannot be).
    const health = yield* env.ctx
      .prepareHealth(env.def, { env: hookEnv })
      .pipe(
        Effect.catchAll((e) =>
          Effect.logWarning(`${env.def.id.qualified}: its health check is off: ${e.message}`).pipe(
            Effect.as(undefined),
          ),
        ),
      )
    const { scope } = yield* runScope(env, Effect.succeed(handle))
    yield* exitOf(env, serial, handle).pipe(Effect.forkIn(scope))
    return {
      serial,
      scope,
      handle,
      ports: { ports: [], offset: 0 },
      ready: true,
      adopted: true,
      hookRun: { env: hookEnv },
      health,
    } satisfies Run
  }).pipe(Effect.orDie)
