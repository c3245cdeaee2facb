import { spawn } from "node:child_process"
import { type Duration, Effect } from "effect"
import { killGroup } from "../../process/procfs.js"

/** How to run a `ready_cmd`: the daemon's shell, dir, environment and user. */
export interface ReadyCommand {
  readonly run: string
  /** e.g. `["sh", "-c"]`; `run` is appended. */
  readonly shell: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly uid?: number
  readonly gid?: number
}

/**
 * One `ready_cmd` attempt: true when the command exits 0. It runs in its own process group
 * with no stdin and its output discarded; an attempt still running after `attemptTimeout`
 * (or interrupted) has its whole group SIGKILLed and counts as "not yet".
 */
export const probeCmd = (cmd: ReadyCommand, attemptTimeout: Duration.DurationInput): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    let done = false
    const finish = (ok: boolean) => {
      if (done) return
      done = true
      resume(Effect.succeed(ok))
    }
    const [program, ...args] = cmd.shell
    let pid: number | undefined
    try {
      const child = spawn(program ?? "sh", [...args, cmd.run], {
        cwd: cmd.cwd,
        env: cmd.env,
        stdio: "ignore",
        detached: true,
        ...(cmd.uid !== undefined ? { uid: cmd.uid } : {}),
        ...(cmd.gid !== undefined ? { gid: cmd.gid } : {}),
      })
      pid = child.pid
      child.once("error", () => finish(false))
      child.once("exit", (code) => {
        pid = undefined
        finish(code === 0)
      })
    } catch {
      finish(false)
    }
    return Effect.sync(() => killGroup(pid))
  }).pipe(Effect.timeoutTo({ duration: attemptTimeout, onTimeout: () => false, onSuccess: (ok) => ok }))
