// Starting a daemon: through the spawn helper (spawnHelper.ts) or Node's child_process, exec'ing
// the program directly where the shell would only exec it (directExec.ts).
import { type ChildProcess, type SpawnOptions, spawn as spawnChild } from "node:child_process"
import * as fs from "node:fs"
import { Deferred, Effect, Exit } from "effect"
import { dashPwd, directExec } from "./directExec.js"
import { errnoCode, errorMessage } from "./errno.js"
import { resolveExecutable } from "./executable.js"
import { type ExitNotice, makeExitNotice } from "./exitNotice.js"
import { makeFifo, openFifoForDaemon } from "./fifo.js"
import { type ExitStatus, type ProcessHandle, SpawnError, type SpawnRequest } from "./ProcessService.js"
import { readStat } from "./procfs.js"
import { ptyArgv, ptyEnv } from "./pty.js"
import { PTY_SCRIPT } from "./ptyScript.js"
import type { SpawnHelper } from "./spawnHelper.js"

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
    fd = fs.openSync(req.outputFile, "a", 0o600) // O_WRONLY | O_APPEND | O_CREAT
  } catch (error) {
    return { problem: `cannot open output file ${req.outputFile}: ${errorMessage(error)}` }
  }
  let stdin: number | "ignore" = "ignore"
  if (req.input !== undefined && req.pty !== true)
    try {
      stdin = openFifoForDaemon(req.input)
    } catch (error) {
      fs.closeSync(fd)
      return { problem: `cannot open the input pipe ${req.input}: ${errorMessage(error)}` }
    }
  const options: SpawnOptions = {
    cwd: req.cwd,
    env: req.env,
    argv0: exec.argv[0]!, // as given ("sh"), though the absolute path is executed
    detached: true, // setsid(): own session and process group, so the group can be signalled as one
    stdio: [stdin, fd, fd],
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
    if (typeof stdin === "number") fs.closeSync(stdin)
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

/** The handle of a child we started, whose exit `exited` tells. */
const handleOf = (pid: number, startTime: string, exited: ExitNotice): ProcessHandle => ({
  pid,
  startTime,
  exit: exited.exit,
  ownChild: true,
  whenExited: exited.whenExited,
})

export const makeSpawn = (helpers: () => SpawnHelper | undefined) => {
  /** One try through the spawn helper; undefined when the helper died before it answered. */
  const viaHelper = (helper: SpawnHelper, req: SpawnRequest, exec: Exec) =>
    Effect.gen(function* () {
      const exited = makeExitNotice()
      const started = yield* Effect.promise(() =>
        helper.spawn(
          { file: exec.file, argv: exec.argv, cwd: req.cwd, env: req.env, outputFile: req.outputFile },
          exited.done,
        ),
      )
      if ("pid" in started) {
        const startTime = readStat(started.pid)?.startTime ?? ""
        return { handle: handleOf(started.pid, startTime, exited) } satisfies Attempt
      }
      const { error } = started
      // the helper died before it could say, or cannot carry the request: Node spawns this one
      if (error.code === "EHELPER" || error.code === "ENUL") return undefined
      if (error.syscall === "open")
        return {
          failed: `cannot open output file ${req.outputFile}: ${error.message}`,
          step: "other",
        } as const
      // worded as Node's errors are: an Error with its code
      const asError = Object.assign(new Error(error.message), { code: error.code, syscall: error.syscall })
      return { failed: spawnProblem(asError, req, exec.argv[0]!), step: "exec" } as const
    })

  /** One try through Node's `child_process.spawn`. */
  const viaNode = (req: SpawnRequest, exec: Exec) =>
    Effect.gen(function* () {
      const exited = makeExitNotice()
      const failed = yield* Deferred.make<unknown>()
      const launched = launch(req, exec, {
        onError: (error) => Deferred.unsafeDone(failed, Exit.succeed(error)),
        onExit: exited.done,
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
      return { handle: handleOf(pid, startTime, exited) } satisfies Attempt
    })

  const attempt = (req: SpawnRequest, exec: Exec): Effect.Effect<Attempt> =>
    Effect.gen(function* () {
      // the helper hands its children /dev/null for stdin: a daemon reading a pipe is Node's
      const plainStdin = req.input === undefined || req.pty === true
      const helper = req.uid === undefined && req.gid === undefined && plainStdin ? helpers() : undefined
      if (helper !== undefined) {
        const r = yield* viaHelper(helper, req, exec)
        if (r !== undefined) return r
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
      if (req.input !== undefined) {
        const problem = makeFifo(req.input)
        if (problem !== undefined) return yield* fail(problem)
      }
      if (req.pty === true) {
        // the shell always: an exec that fails inside the pseudo-terminal's shim has no fallback
        const env = ptyEnv(req.env)
        const wrapped = ptyArgv(
          PTY_SCRIPT,
          req.id,
          req.input ?? "",
          shellPath,
          [file, ...shellArgs, req.command],
          env,
        )
        if ("problem" in wrapped) return yield* fail(wrapped.problem)
        const r = yield* attempt({ ...req, env }, wrapped)
        if ("handle" in r) return r.handle
        return yield* fail(r.failed)
      }
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
