import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as util from "node:util"
import { Context, Effect, Layer } from "effect"
import { type HelperProgram, helperPrograms } from "./helperPrograms.js"
import type { ExitStatus } from "./ProcessService.js"
import { isExitedState, readStat } from "./procfs.js"

/**
 * Daemons are forked by a small helper process instead of by the supervisor itself.
 *
 * Node spawns with libuv's `fork()`, which copies the page tables of the whole supervisor
 * (~70 MiB) and then waits on the supervisor's only thread until the child has torn that copy
 * down again in `execve`: ~1.5 ms per daemon, half of what a start of 50 daemons cost. The
 * helper is small: it forks in a fraction of that, on the other core, while the supervisor goes
 * on with the next daemon; the supervisor only writes a line and reads one back. The helper is
 * the daemons' parent: it reaps them and reports each exit status. If it dies, the daemons it
 * started are watched like adopted ones (their exit status is then unknown) and the next spawn
 * starts a new helper.
 *
 * Two programs speak its protocol (spawnHelperScript.ts): the C one (spawnHelper.c, built into
 * dist/ where a C compiler was at hand; ~1 MiB resident) and the Perl script (~5.5 MiB). The C
 * one is used where it was built and runs, else the Perl one. `SUPERVISOR_SPAWN_HELPER`: `0`
 * none, `perl` or `c` only that one. Without either, or for a daemon run as another user, Node
 * spawns as before.
 */
export interface SpawnHelper {
  /**
   * Starts `file` with `argv` (argv[0] first) as the leader of a new session, its stdout and
   * stderr appended to `outputFile`; `onExit` hears how it ended. Resolves with the pid, or with
   * the failure as Node would have thrown it (`code` an errno name, `syscall` the step).
   */
  readonly spawn: (
    req: HelperSpawn,
    onExit: (status: ExitStatus) => void,
  ) => Promise<{ readonly pid: number } | { readonly error: SpawnFailure }>
  /** The helper's pid while it runs. */
  readonly pid: () => number | undefined
}

export interface HelperSpawn {
  readonly file: string
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly outputFile: string
}

export interface SpawnFailure {
  readonly code: string
  readonly syscall: string
  readonly message: string
}

/** `setsid` by architecture (Linux system call numbers); elsewhere `setpgrp`. */
const SETSID: Readonly<Record<string, number>> = {
  x64: 112,
  arm64: 157,
  riscv64: 157,
  loong64: 157,
  ia32: 66,
  arm: 66,
  s390x: 66,
  ppc64: 156,
}

/**
 * `prctl` by architecture (Linux system call numbers): the helper of a supervisor in container
 * mode makes itself a child subreaper with it (spawnHelperScript.ts).
 */
export const PRCTL: Readonly<Record<string, number>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  ia32: 172,
  arm: 172,
  s390x: 172,
  ppc64: 171,
}

/**
 * `sched_setattr` by 64-bit architecture (Linux system call numbers; the helper packs 64-bit
 * fields, which a 32-bit Perl may lack): the helper asks it for a short time slice for the
 * supervisor's main thread (spawnHelperScript.ts).
 */
export const SCHED_SETATTR: Readonly<Record<string, number>> = {
  x64: 314,
  arm64: 274,
  riscv64: 274,
  loong64: 274,
  s390x: 345,
  ppc64: 355,
}

const signalNames = new Map<number, string>(
  Object.entries(os.constants.signals).map(([name, n]) => [n, name] as const),
)

/** A raw wait status as Node reports an exit: a code, or the signal that ended it. */
export const decodeWaitStatus = (status: number): ExitStatus => {
  const signal = status & 0x7f
  return signal === 0
    ? { code: (status >> 8) & 0xff, signal: null, known: true }
    : { code: null, signal: signalNames.get(signal) ?? `SIG${signal}`, known: true }
}

const failure = (step: string, errno: number, req: HelperSpawn): SpawnFailure => {
  const code = errno > 0 ? util.getSystemErrorName(-errno) : "UNKNOWN"
  const text = util.getSystemErrorMap().get(-errno)?.[1] ?? "unknown error"
  // as Node words them: an open of the output file, else a spawn (a failed chdir included)
  const message =
    step === "open" ? `${code}: ${text}, open '${req.outputFile}'` : `spawn ${req.argv[0]} ${code}`
  return { code, syscall: step, message }
}

interface Pending {
  /** The child's pid once the helper has forked it (`F`), before it has answered. */
  forked?: number
  readonly req: HelperSpawn
  readonly onExit: (status: ExitStatus) => void
  readonly resolve: (r: { readonly pid: number } | { readonly error: SpawnFailure }) => void
}

/** How often a daemon whose helper died is looked for in /proc. */
const ORPHAN_POLL_MILLIS = 250

/**
 * The helper of this supervisor, started on first use; undefined when there is none to be had
 * (neither program at hand, switched off, or it died too often), and Node spawns. `close` ends it
 * (the daemons it forked keep running).
 */
export type SpawnHelperPool = (() => SpawnHelper | undefined) & { readonly close: () => void }

/** No helper: Node forks every daemon. */
export const noSpawnHelper: SpawnHelperPool = Object.assign(() => undefined, { close: () => {} })

export interface SpawnHelperOptions {
  /**
   * Container mode: the helper is a child subreaper (Linux), so that the orphans of the daemons
   * it forks are re-parented to it, which reaps them, rather than to PID 1 (docs/container.md).
   */
  readonly subreaper?: boolean
  /**
   * The helper asks the kernel for a short time slice for its parent's main thread (docs/attach.md
   * "On a busy machine"): the supervisor's, not a test runner's.
   */
  readonly shortSlice?: boolean
  /** The programs to try, best first; by default `helperPrograms(env)`. */
  readonly programs?: ReadonlyArray<HelperProgram>
}

export const makeSpawnHelperPool = (
  env: NodeJS.ProcessEnv = process.env,
  options: SpawnHelperOptions = {},
): SpawnHelperPool => {
  let deaths = 0
  let current: ReturnType<typeof startHelper> | undefined
  let closed = false
  const candidates = SETSID[process.arch] === undefined ? [] : [...(options.programs ?? helperPrograms(env))]
  const get = (): SpawnHelper | undefined => {
    const program = candidates[0]
    if (program === undefined || deaths >= 3 || closed) return undefined
    if (current === undefined || current.dead()) {
      current = startHelper(
        program,
        options.subreaper === true ? (PRCTL[process.arch] ?? 0) : 0,
        options.shortSlice === true ? (SCHED_SETATTR[process.arch] ?? 0) : 0,
        (started) => {
          // a program that cannot even start (built for another machine) is not tried again
          if (started) deaths++
          else if (candidates[0] === program) candidates.shift()
        },
      )
    }
    return current
  }
  return Object.assign(get, {
    close: () => {
      closed = true
      current?.close()
    },
  })
}

/**
 * The spawn helper as a resource of the supervisor: started on first use, ended when the
 * supervisor's scope closes. `SUPERVISOR_SPAWN_HELPER=0` in `env` switches it off.
 */
export class SpawnHelpers extends Context.Tag("supervisor/SpawnHelpers")<SpawnHelpers, SpawnHelperPool>() {}

export const SpawnHelpersLive = (env: NodeJS.ProcessEnv = process.env, options: SpawnHelperOptions = {}) =>
  Layer.scoped(
    SpawnHelpers,
    Effect.acquireRelease(
      Effect.sync(() => makeSpawnHelperPool(env, options)),
      (pool) => Effect.sync(() => pool.close()),
    ),
  )

/**
 * `prctl`: its system call number when the helper is to be a child subreaper, else 0;
 * `schedSetattr`: its number when the helper is to shorten its parent's time slice, else 0.
 */
const startHelper = (
  program: HelperProgram,
  prctl: number,
  schedSetattr: number,
  onDeath: (started: boolean) => void,
) => {
  const { O_WRONLY, O_APPEND, O_CREAT } = fs.constants
  const child: ChildProcess = spawn(
    program.file,
    [
      ...program.args,
      String(SETSID[process.arch] ?? 0),
      String(O_WRONLY | O_APPEND | O_CREAT),
      String(prctl),
      String(schedSetattr),
    ],
    // detached: not in the supervisor's process group, so that Ctrl-C at a terminal that runs
    // `supervisor supervisor run` reaches the supervisor (which stops the daemons), not the helper
    { stdio: ["pipe", "pipe", "inherit"], env: { PATH: "/usr/bin:/bin" }, detached: true },
  )
  let dead = false
  let started = false
  child.once("spawn", () => {
    started = true
  })
  let nextId = 1
  const pending = new Map<number, Pending>()
  const running = new Map<number, (status: ExitStatus) => void>()
  let buffered = ""

  const onLine = (line: string) => {
    const f = line.split("\t")
    if (f[0] === "X") {
      const pid = Number(f[1])
      const onExit = running.get(pid)
      running.delete(pid)
      onExit?.(decodeWaitStatus(Number(f[2])))
      return
    }
    const id = Number(f[1])
    const p = pending.get(id)
    if (p === undefined) return
    if (f[0] === "F") {
      p.forked = Number(f[2])
      return
    }
    pending.delete(id)
    if (f[0] === "P") {
      const pid = Number(f[2])
      running.set(pid, p.onExit)
      p.resolve({ pid })
    } else p.resolve({ error: failure(f[2] ?? "exec", Number(f[3]), p.req) })
  }

  const die = () => {
    if (dead) return
    dead = true
    onDeath(started)
    // not answered: say so (the caller spawns another way), and end what was forked for them
    // already, so that no daemon runs twice, once untracked
    for (const p of pending.values()) {
      if (p.forked !== undefined) killForked(p.forked)
      p.resolve({ error: { code: "EHELPER", syscall: "spawn", message: "the spawn helper exited" } })
    }
    pending.clear()
    // started: nobody reaps them for us now; they are watched like adopted daemons
    for (const [pid, onExit] of running) watchOrphan(pid, onExit)
    running.clear()
  }

  child.stdout?.setEncoding("utf8")
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk
    let nl = buffered.indexOf("\n")
    while (nl !== -1) {
      onLine(buffered.slice(0, nl))
      buffered = buffered.slice(nl + 1)
      nl = buffered.indexOf("\n")
    }
  })
  child.on("error", die)
  // 'close', not 'exit': it comes once stdout is drained, so no answer it wrote is lost
  child.on("close", die)
  child.stdin?.on("error", die)
  // The helper never keeps the supervisor alive; when the supervisor exits, its end of stdin
  // closes and the helper exits too, leaving the daemons running (to be adopted).
  child.unref()
  ;(child.stdin as unknown as { unref?: () => void } | null)?.unref?.()
  ;(child.stdout as unknown as { unref?: () => void } | null)?.unref?.()

  const helper: SpawnHelper & { readonly dead: () => boolean; readonly close: () => void } = {
    dead: () => dead,
    // the end of its stdin: it exits, leaving its children running
    close: () => child.stdin?.end(),
    pid: () => (dead ? undefined : child.pid),
    spawn: (req, onExit) =>
      new Promise((resolve) => {
        if (dead) {
          resolve({ error: { code: "EHELPER", syscall: "spawn", message: "the spawn helper exited" } })
          return
        }
        const fields: Array<string | number> = ["S", 0, req.cwd, req.outputFile, req.file, req.argv.length]
        for (const arg of req.argv) fields.push(arg)
        const keys = Object.keys(req.env)
        fields.push(keys.length)
        for (const k of keys) fields.push(`${k}=${req.env[k]}`)
        // a NUL would end a field early; Node refuses such strings, and says so
        if (fields.some((field) => typeof field === "string" && field.includes("\0"))) {
          resolve({
            error: {
              code: "ENUL",
              syscall: "spawn",
              message: "a NUL byte in an argument or the environment",
            },
          })
          return
        }
        const id = nextId++
        // an answer is awaited: the supervisor must not exit meanwhile (nothing else may hold it)
        if (pending.size === 0) (child.stdout as unknown as { ref?: () => void } | null)?.ref?.()
        pending.set(id, {
          req,
          onExit,
          resolve: (r) => {
            if (pending.size === 0) (child.stdout as unknown as { unref?: () => void } | null)?.unref?.()
            resolve(r)
          },
        })
        fields[1] = id
        child.stdin?.write(`${fields.join("\0")}\0`)
      }),
  }
  return helper
}

/** A child forked for a request the dead helper never answered: its group, or itself, is ended. */
const killForked = (pid: number) => {
  for (const target of [-pid, pid])
    try {
      process.kill(target, "SIGKILL")
    } catch {}
}

/** A daemon whose helper died: polled until its pid is gone (or names another process). */
const watchOrphan = (pid: number, onExit: (status: ExitStatus) => void) => {
  const startTime = liveStartTime(pid)
  const poll = () => {
    const now = liveStartTime(pid)
    if (now === undefined || now !== startTime) onExit({ code: null, signal: null, known: false })
    else setTimeout(poll, ORPHAN_POLL_MILLIS).unref()
  }
  poll()
}

/** The process's start time, or undefined when it is gone or has exited (a zombie). */
const liveStartTime = (pid: number): string | undefined => {
  const stat = readStat(pid)
  return stat === undefined || isExitedState(stat.state) ? undefined : stat.startTime
}
