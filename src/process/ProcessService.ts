import { Context, type Duration, type Effect, type Option, Schema } from "effect"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"

/** Everything needed to start one daemon process. */
export interface SpawnRequest {
  /** The qualified daemon ID, for error messages. */
  readonly id: string
  /** The daemon's `run` string. */
  readonly command: string
  /** The shell and its arguments, e.g. `["sh", "-c"]`; the command is appended as the last argument. */
  readonly shell: ReadonlyArray<string>
  readonly cwd: string
  /** The complete environment: nothing is inherited from the supervisor. */
  readonly env: Readonly<Record<string, string>>
  /** stdout and stderr are appended to this file (created with mode 0600); stdin is /dev/null unless `input`. */
  readonly outputFile: string
  readonly uid?: number
  readonly gid?: number
  /**
   * Run under a pseudo-terminal (pty.ts): stdin, stdout and stderr are its terminal side, and a
   * holder process outside the daemon's group copies what it writes to `outputFile`.
   */
  readonly pty?: boolean
  /**
   * A named pipe made for this run (docs/attach.md): under `pty`, the holder reads framed input
   * and window sizes from it; otherwise it is the daemon's stdin (`stdin = "pipe"`).
   */
  readonly input?: string
}

/** How a process ended. `known` is false for an adopted process: it is not our child, so no status exists. */
export interface ExitStatus {
  readonly code: number | null
  readonly signal: string | null
  readonly known: boolean
}

export interface ProcessHandle {
  /** Also the process group ID: the process leads its own session and group. */
  readonly pid: number
  /** Field 22 of `/proc/<pid>/stat`: with the pid, identifies the process even after the pid is recycled. */
  readonly startTime: string
  /** Completes once the tracked process has exited. */
  readonly exit: Effect.Effect<ExitStatus>
  /**
   * Our own child (forked by us or the spawn helper): `exit` completes as it is reaped. Absent for
   * an adopted process, whose `exit` is a look at /proc now and then.
   */
  readonly ownChild?: boolean
  /**
   * Our own child's exit as a callback (src/process/exitNotice.ts): calls `f` once it has exited
   * (at once if it has); the function returned unregisters it. Absent where only `exit` tells.
   */
  readonly whenExited?: (f: (status: ExitStatus) => void) => () => void
}

export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  id: Schema.String,
  command: Schema.String,
  message: Schema.String,
}) {}

export interface ProcessServiceShape {
  /**
   * Starts a daemon in a new session and process group. Not scoped: the daemon outlives the
   * supervisor, and its output goes to a file, never to a pipe the supervisor must keep reading.
   */
  readonly spawn: (req: SpawnRequest) => Effect.Effect<ProcessHandle, SpawnError>
  /** Some when that exact process (same start time, not a zombie) is still alive. */
  readonly adopt: (pid: number, startTime: string) => Effect.Effect<Option.Option<ProcessHandle>>
  readonly isAlive: (pid: number, startTime: string) => Effect.Effect<boolean>
  /** Sends `signal` to every process of the group; a group that no longer exists is not an error. */
  readonly signalGroup: (pgid: number, signal: NodeJS.Signals) => Effect.Effect<void>
  /** The live (non-zombie) pids of the group. */
  readonly groupMembers: (pgid: number) => Effect.Effect<ReadonlyArray<number>>
  /**
   * Sends `signal` to the group and waits until the tracked process has exited and no member of
   * the group is left, at most `timeout`; then SIGKILLs the group and waits again (bounded).
   * Returns the tracked process's exit status. Safe to call when the process already exited.
   */
  readonly stop: (
    handle: ProcessHandle,
    signal: NodeJS.Signals,
    timeout: Duration.DurationInput,
  ) => Effect.Effect<ExitStatus>
  /** The process and its descendants; None when the process does not exist. */
  readonly tree: (pid: number) => Effect.Effect<Option.Option<ProcessTreeNode>>
}

/**
 * The OS edge for running daemons. Live layer: `ProcessServiceLive` (NodeProcessService.ts, Linux
 * only: it reads /proc). Test double: `makeFakeProcessService` (src/testing/FakeProcessService.ts).
 */
export class ProcessService extends Context.Tag("supervisor/ProcessService")<
  ProcessService,
  ProcessServiceShape
>() {}
