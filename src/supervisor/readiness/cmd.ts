import { type Duration, Effect } from "effect"
import type { ProcessServiceShape } from "../../process/ProcessService.js"
import { type ShellCommand, spawnShell } from "../../process/shell.js"

/** How to run a `ready_cmd`: the daemon's shell, dir, environment and user. */
export type ReadyCommand = ShellCommand

/**
 * One `ready_cmd` attempt: true when the command exits 0. It runs in its own process group
 * with no stdin and its output discarded; an attempt still running after `attemptTimeout`
 * (or interrupted) has its whole group SIGKILLed and counts as "not yet".
 */
export const probeCmd =
  (processes: Pick<ProcessServiceShape, "signalGroup">) =>
  (cmd: ReadyCommand, attemptTimeout: Duration.DurationInput): Effect.Effect<boolean> =>
    Effect.async<boolean>((resume) => {
      let done = false
      const finish = (ok: boolean) => {
        if (done) return
        done = true
        resume(Effect.succeed(ok))
      }
      let pid: number | undefined
      try {
        const child = spawnShell(cmd, "ignore")
        pid = child.pid
        child.once("error", () => finish(false))
        child.once("exit", (code) => {
          pid = undefined
          finish(code === 0)
        })
      } catch {
        finish(false)
      }
      return Effect.suspend(() => (pid === undefined ? Effect.void : processes.signalGroup(pid, "SIGKILL")))
    }).pipe(Effect.timeoutTo({ duration: attemptTimeout, onTimeout: () => false, onSuccess: (ok) => ok }))
