import { Duration, Effect, Layer, Option } from "effect"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import { errnoCode, errorMessage } from "./errno.js"
import { exitWithin, MAX_TIMER_MS } from "./exitNotice.js"
import {
  type ExitStatus,
  type ProcessHandle,
  ProcessService,
  type ProcessServiceShape,
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
import { makeSpawn } from "./spawn.js"
import { noSpawnHelper, type SpawnHelperPool, SpawnHelpers } from "./spawnHelper.js"

/** An adopted process is not our child: no exit event, so poll. */
const ADOPTED_POLL = Duration.millis(250)
/** How often `stop` looks for surviving group members. */
const STOP_POLL = Duration.millis(50)
/** After SIGKILL only an uninterruptible (D state) process can linger; do not wait for it forever. */
const KILL_WAIT = Duration.seconds(5)

const UNKNOWN_EXIT: ExitStatus = { code: null, signal: null, known: false }

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

const adopt = (pid: number, startTime: string): Effect.Effect<Option.Option<ProcessHandle>> =>
  Effect.sync(() =>
    isAliveNow(pid, startTime)
      ? Option.some({ pid, startTime, exit: pollExit(pid, startTime) })
      : Option.none(),
  )

/**
 * Our own child's exit within `ms`, then the rest of its group gone in what is left of them
 * (`membersGone`); none once they have passed.
 */
const ownChildGone = (
  pgid: number,
  whenExited: NonNullable<ProcessHandle["whenExited"]>,
  ms: number,
  membersGone: Effect.Effect<void>,
): Effect.Effect<Option.Option<ExitStatus>> =>
  Effect.gen(function* () {
    const began = Date.now()
    const exited = yield* Effect.interruptible(exitWithin(whenExited, ms))
    if (Option.isNone(exited) || groupMembersNow(pgid).length === 0) return exited
    const left = Math.max(0, ms - (Date.now() - began))
    const gone = yield* membersGone.pipe(Effect.interruptible, Effect.timeoutOption(left))
    return Option.isSome(gone) ? exited : Option.none()
  })

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
    // Gone: the tracked process has exited and no member of its group is left. Our own child's
    // exit event comes as it is reaped: wait for that, then the group is usually gone (one
    // kill(-pgid, 0)); only members outliving the leader need the scan of /proc, every STOP_POLL.
    // An adopted process's exit is itself a look at /proc every ADOPTED_POLL: look every STOP_POLL
    // instead, cheapest first (one stat read while it lives), and once it has exited (a zombie
    // until its parent reaps it) wait for that, bounded.
    const membersGone = Effect.gen(function* () {
      while (groupMembersNow(handle.pid).length > 0) yield* Effect.sleep(STOP_POLL)
    })
    const waitUntilGone = handle.ownChild
      ? Effect.zipLeft(handle.exit, membersGone)
      : Effect.gen(function* () {
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
    // Interruptible: stop usually runs in a finalizer, where the timeout could not cancel the
    // wait otherwise. Our own child's exit is a callback, waited for with a timer beside it rather
    // than by a race of two fibers (~2,600 fewer fiber operations in a stop of 50); members
    // outliving it are waited for as above, in what is left of the timeout.
    const ms = Duration.toMillis(Duration.decode(timeout))
    const whenExited = handle.whenExited
    const first =
      handle.ownChild && whenExited !== undefined && ms <= MAX_TIMER_MS
        ? yield* ownChildGone(handle.pid, whenExited, ms, membersGone)
        : yield* waitUntilGone.pipe(Effect.interruptible, Effect.timeoutOption(timeout))
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
/** Daemons are forked by the spawn helper of `helpers` when there is one (spawnHelper.ts), else by Node. */
export const makeNodeProcessService = (helpers: SpawnHelperPool = noSpawnHelper): ProcessServiceShape => ({
  spawn: makeSpawn(helpers),
  adopt,
  isAlive: (pid, startTime) => Effect.sync(() => isAliveNow(pid, startTime)),
  signalGroup,
  groupMembers: (pgid) => Effect.sync(() => groupMembersNow(pgid)),
  stop,
  tree,
})

/** The live process service, forking through the spawn helper (`SpawnHelpersLive`) when it can. */
export const ProcessServiceLive: Layer.Layer<ProcessService, never, SpawnHelpers> = Layer.effect(
  ProcessService,
  Effect.map(SpawnHelpers, makeNodeProcessService),
)
