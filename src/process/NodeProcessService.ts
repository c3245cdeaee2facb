import { type ChildProcess, type SpawnOptions, spawn as spawnChild } from "node:child_process"
import * as fs from "node:fs"
import { Deferred, Duration, Effect, Exit, FiberId, Layer, Option } from "effect"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import { dashPwd, directExec } from "./directExec.js"
import { resolveExecutable } from "./executable.js"
import {
  type ExitStatus,
  type ProcessHandle,
  ProcessService,
  type ProcessServiceShape,
  SpawnError,
  type SpawnRequest,
} from "./ProcessService.js"
import {
  cpuUsage,
  isExitedState,
  type ProcStat,
  readAllStats,
  readExe,
  readMemory,
  readStat,
  readSystemUptime,
  stateName,
} from "./procfs.js"
import { makeSpawnHelperPool, type SpawnHelper } from "./spawnHelper.js"

/** An adopted process is not our child: no exit event, so poll. */
const ADOPTED_POLL = Duration.millis(250)
/** How often `stop` looks for surviving group members. */
const STOP_POLL = Duration.millis(50)
/** After SIGKILL only an uninterruptible (D state) process can linger; do not wait for it forever. */
const KILL_WAIT = Duration.seconds(5)

const UNKNOWN_EXIT: ExitStatus = { code: null, signal: null, known: false }

const errnoCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Why `cwd` cannot be a working directory, or undefined when it can. */
const directoryProblem = (cwd: string): string | undefined => {
  try {
    return fs.statSync(cwd).isDirectory() ? undefined : `working directory ${cwd} is not a directory`
  } catch (error) {
    const code = errnoCode(error)
    if (code === "ENOENT") return `working directory ${cwd} does not exist`
    if (code === "ENOTDIR") return `working directory ${cwd} is not a directory`
    if (code === "EACCES") return `working directory ${cwd} is not accessible: permission denied`
    return `working directory ${cwd} cannot be used: ${errorMessage(error)}`
  }
}

/** Turns a failure of `child_process.spawn` (thrown or emitted) into words about this daemon. */
const spawnProblem = (error: unknown, req: SpawnRequest, file: string): string => {
  const asUser = [
    req.uid === undefined ? undefined : `uid ${req.uid}`,
    req.gid === undefined ? undefined : `gid ${req.gid}`,
  ]
    .filter((part) => part !== undefined)
    .join(" and ")
  switch (errnoCode(error)) {
    case "ENOENT":
      return `shell ${JSON.stringify(file)} not found (PATH=${req.env.PATH ?? "<unset>"}), or working directory ${req.cwd} vanished`
    case "EACCES":
      return `permission denied executing shell ${JSON.stringify(file)} or entering ${req.cwd}${asUser ? ` as ${asUser}` : ""}`
    case "EPERM":
      return asUser
        ? `not permitted to run as ${asUser}: switching users needs a supervisor running as root`
        : `operation not permitted: ${errorMessage(error)}`
    default:
      return errorMessage(error)
  }
}

const isAliveNow = (pid: number, startTime: string): boolean => {
  const stat = readStat(pid)
  return stat !== undefined && !isExitedState(stat.state) && stat.startTime === startTime
}

/**
 * Whether any process of the group exists, zombies included: `kill(-pgid, 0)`, one system call
 * instead of a scan of every process's `/proc/<pid>/stat`. EPERM means it exists (another user's).
 */
const groupExists = (pgid: number): boolean => {
  if (!Number.isInteger(pgid) || pgid <= 1) return false
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === "EPERM"
  }
}

/** The live (non-zombie) members: the scan of `/proc` only when the group exists at all. */
const groupMembersNow = (pgid: number): ReadonlyArray<number> =>
  groupExists(pgid)
    ? readAllStats()
        .filter((stat) => stat.pgrp === pgid && !isExitedState(stat.state))
        .map((stat) => stat.pid)
    : []

/**
 * A process group ID stays allocated while any member lives, so a group is still ours unless its
 * leader's pid now names a different process (the leader died, the group emptied, the pid was reused).
 */
const ownsGroup = (handle: ProcessHandle): boolean => {
  const stat = readStat(handle.pid)
  return stat === undefined || stat.startTime === handle.startTime
}

const signalGroup = (pgid: number, signal: NodeJS.Signals): Effect.Effect<void> =>
  // kill(0) and kill(-1) would signal our own group or every process we may signal
  !Number.isInteger(pgid) || pgid <= 1
    ? Effect.dieMessage(`refusing to signal process group ${pgid}`)
    : Effect.suspend(() => {
        try {
          process.kill(-pgid, signal)
          return Effect.void
        } catch (error) {
          if (errnoCode(error) === "ESRCH") return Effect.void
          return Effect.logWarning(`cannot send ${signal} to process group ${pgid}: ${errorMessage(error)}`)
        }
      })

const pollExit = (pid: number, startTime: string): Effect.Effect<ExitStatus> =>
  Effect.gen(function* () {
    while (isAliveNow(pid, startTime)) yield* Effect.sleep(ADOPTED_POLL)
    return UNKNOWN_EXIT
  })

/**
 * Opens the output file, starts the child and attaches its listeners, all synchronously: Node emits
 * 'error' and 'exit' on a later tick, and an 'error' event without a listener would crash the supervisor.
 */
const launch = (
  req: SpawnRequest,
  exec: Exec,
  on: { readonly onError: (error: unknown) => void; readonly onExit: (status: ExitStatus) => void },
): { readonly child: ChildProcess } | { readonly problem: string } => {
  let fd: number
  try {
    fd = fs.openSync(req.outputFile, "a", 0o640) // O_WRONLY | O_APPEND | O_CREAT
  } catch (error) {
    return { problem: `cannot open output file ${req.outputFile}: ${errorMessage(error)}` }
  }
  const options: SpawnOptions = {
    cwd: req.cwd,
    env: req.env,
    argv0: exec.argv[0]!, // as given ("sh"), though the absolute path is executed
    detached: true, // setsid(): own session and process group, so the group can be signalled as one
    stdio: ["ignore", fd, fd],
    ...(req.uid === undefined ? {} : { uid: req.uid }),
    ...(req.gid === undefined ? {} : { gid: req.gid }),
  }
  let child: ChildProcess
  try {
    child = spawnChild(exec.file, exec.argv.slice(1), options)
  } catch (error) {
    return { problem: spawnProblem(error, req, exec.argv[0]!) }
  } finally {
    fs.closeSync(fd) // the child has its own copy; ours would only keep the file open
  }
  child.on("error", on.onError)
  child.once("exit", (code, signal) => on.onExit({ code, signal, known: true }))
  return { child }
}

/** What to exec: the file (an absolute path when found) and its argv, argv[0] first. */
interface Exec {
  readonly file: string
  readonly argv: ReadonlyArray<string>
}

type Attempt =
  | { readonly handle: ProcessHandle }
  /** `exec`: the program could not be run (the direct exec falls back to the shell on it). */
  | { readonly failed: string; readonly step: "exec" | "other" }

const makeSpawn = (helpers: () => SpawnHelper | undefined) => {
  /** One try through the spawn helper; undefined when the helper died before it answered. */
  const viaHelper = (helper: SpawnHelper, req: SpawnRequest, exec: Exec) =>
    Effect.gen(function* () {
      const exited = Deferred.unsafeMake<ExitStatus>(FiberId.none)
      const started = yield* Effect.promise(() =>
        helper.spawn(
          { file: exec.file, argv: exec.argv, cwd: req.cwd, env: req.env, outputFile: req.outputFile },
          (status) => Deferred.unsafeDone(exited, Exit.succeed(status)),
        ),
      )
      if ("pid" in started) {
        const startTime = readStat(started.pid)?.startTime ?? ""
        return { handle: { pid: started.pid, startTime, exit: Deferred.await(exited) } } satisfies Attempt
      }
      const { error } = started
      if (error.code === "EHELPER") return undefined
      if (error.syscall === "open")
        return {
          failed: `cannot open output file ${req.outputFile}: ${error.message}`,
          step: "other",
        } as const
      return { failed: spawnProblem(error, req, exec.argv[0]!), step: "exec" } as const
    })

  /** One try through Node's `child_process.spawn`. */
  const viaNode = (req: SpawnRequest, exec: Exec) =>
    Effect.gen(function* () {
      const exited = yield* Deferred.make<ExitStatus>()
      const failed = yield* Deferred.make<unknown>()
      const launched = launch(req, exec, {
        onError: (error) => Deferred.unsafeDone(failed, Exit.succeed(error)),
        onExit: (status) => Deferred.unsafeDone(exited, Exit.succeed(status)),
      })
      if ("problem" in launched) return { failed: launched.problem, step: "other" } as const
      const { child } = launched
      const pid = child.pid
      if (pid === undefined)
        return {
          failed: spawnProblem(yield* Deferred.await(failed), req, exec.argv[0]!),
          step: "exec",
        } as const
      child.unref()
      // The child exists until Node reaps it, which cannot happen before this synchronous read.
      const startTime = readStat(pid)?.startTime ?? ""
      return { handle: { pid, startTime, exit: Deferred.await(exited) } } satisfies Attempt
    })

  const attempt = (req: SpawnRequest, exec: Exec): Effect.Effect<Attempt> =>
    Effect.gen(function* () {
      const helper = req.uid === undefined && req.gid === undefined ? helpers() : undefined
      if (helper !== undefined) {
        const r = yield* viaHelper(helper, req, exec)
        if (r !== undefined) return r
        // the helper died before it could say: Node spawns this one
      }
      return yield* viaNode(req, exec)
    })

  return (req: SpawnRequest): Effect.Effect<ProcessHandle, SpawnError> =>
    Effect.gen(function* () {
      const fail = (problem: string) =>
        new SpawnError({
          id: req.id,
          command: req.command,
          message: `cannot start daemon ${req.id}: ${problem}`,
        })
      const [file, ...shellArgs] = req.shell
      if (file === undefined || file === "") return yield* fail("no shell configured")
      const cwdProblem = directoryProblem(req.cwd)
      if (cwdProblem !== undefined) return yield* fail(cwdProblem)
      // as another user, PATH is searched as that user would (by execvp in the child)
      const asUser = req.uid !== undefined || req.gid !== undefined
      const resolve = (name: string) => (asUser ? name : resolveExecutable(name, req.env.PATH))
      const shellPath = resolve(file)
      const direct = asUser ? undefined : directExec(req.shell, shellPath, req.command)
      const program = direct === undefined ? undefined : resolve(direct[0]!)
      if (direct !== undefined && program?.includes("/")) {
        const env = { ...req.env, PWD: dashPwd(req.cwd, req.env.PWD) }
        const r = yield* attempt({ ...req, env }, { file: program, argv: direct })
        if ("handle" in r) return r.handle
        if (r.step !== "exec") return yield* fail(r.failed)
        // not runnable as it is (say, a script without #!): the shell runs it, or says why not
      }
      const r = yield* attempt(req, { file: shellPath, argv: [file, ...shellArgs, req.command] })
      if ("handle" in r) return r.handle
      return yield* fail(r.failed)
    }).pipe(Effect.uninterruptible) // once the child exists, its handle must reach the caller
}

const adopt = (pid: number, startTime: string): Effect.Effect<Option.Option<ProcessHandle>> =>
  Effect.sync(() =>
    isAliveNow(pid, startTime)
      ? Option.some({ pid, startTime, exit: pollExit(pid, startTime) })
      : Option.none(),
  )

const stop = (
  handle: ProcessHandle,
  signal: NodeJS.Signals,
  timeout: Duration.DurationInput,
): Effect.Effect<ExitStatus> =>
  Effect.gen(function* () {
    const boundedExit = handle.exit.pipe(
      Effect.interruptible,
      Effect.timeoutOption(KILL_WAIT),
      Effect.map(Option.getOrElse(() => UNKNOWN_EXIT)),
    )
    if (!ownsGroup(handle)) return yield* boundedExit
    // Gone: the tracked process has exited and no member of its group is left. Cheapest first:
    // while the tracked process lives (one stat read) there is nothing more to look at. Once it
    // has exited it stays a zombie member of the group until its parent reaps it (we do, for our
    // child, just before its exit event): wait for that (bounded), and the group is usually gone
    // (one kill(-pgid, 0)); only members outliving the leader need the scan of /proc.
    const waitUntilGone = Effect.gen(function* () {
      for (;;) {
        if (!isAliveNow(handle.pid, handle.startTime)) {
          yield* Effect.timeoutOption(handle.exit, STOP_POLL)
          if (groupMembersNow(handle.pid).length === 0) return yield* handle.exit
        }
        yield* Effect.sleep(STOP_POLL)
      }
    })
    yield* signalGroup(handle.pid, signal)
    // a suspended (T) process keeps the signal pending until continued; systemd sends SIGCONT too
    if (signal !== "SIGCONT") yield* signalGroup(handle.pid, "SIGCONT")
    // interruptible: stop usually runs in a finalizer, where the timeout could not cancel the wait otherwise
    const first = yield* waitUntilGone.pipe(Effect.interruptible, Effect.timeoutOption(timeout))
    if (Option.isSome(first)) return first.value
    yield* Effect.logWarning(
      `process group ${handle.pid} still running ${Duration.format(Duration.decode(timeout))} after ${signal}; sending SIGKILL`,
    )
    yield* signalGroup(handle.pid, "SIGKILL")
    const second = yield* waitUntilGone.pipe(Effect.interruptible, Effect.timeoutOption(KILL_WAIT))
    if (Option.isSome(second)) return second.value
    yield* Effect.logWarning(`process group ${handle.pid} survived SIGKILL for ${Duration.format(KILL_WAIT)}`)
    return yield* boundedExit
  })

const tree = (pid: number): Effect.Effect<Option.Option<ProcessTreeNode>> =>
  Effect.sync(() => {
    const stats = readAllStats()
    const root = stats.find((stat) => stat.pid === pid)
    if (root === undefined) return Option.none()
    const childrenOf = new Map<number, Array<ProcStat>>()
    for (const stat of stats) {
      const siblings = childrenOf.get(stat.ppid)
      if (siblings) siblings.push(stat)
      else childrenOf.set(stat.ppid, [stat])
    }
    const systemUptime = readSystemUptime()
    const node = (stat: ProcStat): ProcessTreeNode => {
      const { uptimeSecs, cpuPercent } = cpuUsage(stat, systemUptime)
      const memory = readMemory(stat.pid)
      return {
        pid: stat.pid,
        name: stat.comm,
        exe: readExe(stat.pid),
        cpu_percent: cpuPercent,
        memory_bytes: memory.residentBytes,
        virtual_memory_bytes: memory.virtualBytes,
        uptime_secs: Math.floor(uptimeSecs),
        thread_count: stat.numThreads,
        status: stateName(stat.state),
        children: (childrenOf.get(stat.pid) ?? [])
          .filter((child) => child.pid !== stat.pid)
          .sort((a, b) => a.pid - b.pid)
          .map(node),
      }
    }
    return Option.some(node(root))
  })

/** The live implementation: `node:child_process` and Linux `/proc`. */
/**
 * `env` decides whether daemons are forked by the spawn helper (spawnHelper.ts): with Perl on
 * its PATH, unless `SUPERVISOR_SPAWN_HELPER=0`.
 */
export const makeNodeProcessService = (env: NodeJS.ProcessEnv = process.env): ProcessServiceShape => ({
  spawn: makeSpawn(makeSpawnHelperPool(env)),
  adopt,
  isAlive: (pid, startTime) => Effect.sync(() => isAliveNow(pid, startTime)),
  signalGroup,
  groupMembers: (pgid) => Effect.sync(() => groupMembersNow(pgid)),
  stop,
  tree,
})

export const ProcessServiceLive: Layer.Layer<ProcessService> = Layer.succeed(
  ProcessService,
  makeNodeProcessService(),
)
