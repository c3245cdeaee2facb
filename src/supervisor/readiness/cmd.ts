import { Duration, Effect } from "effect"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import type { ProcessServiceShape } from "../../process/ProcessService.js"
import { type ShellCommand, spawnShell } from "../../process/shell.js"
import { ANSWER_OUTPUT_MAX, answerOutput, type ProbeAnswer } from "./answer.js"

/** How long after the exit its output may still be read: a background child may hold the pipes. */
const OUTPUT_GRACE_MS = 100

/** How to run a `ready_cmd`: the daemon's shell, dir, environment and user. */
export type ReadyCommand = ShellCommand

/**
 * One attempt of a cmd check: it passes when the command exits 0; its output (stdout and
 * stderr, the last `ANSWER_OUTPUT_MAX` characters) says why not. It runs in its own process
 * group with no stdin; an attempt still running after `attemptTimeout` (or interrupted) has its
 * whole group SIGKILLed and fails.
 */
export const cmdAnswer =
  (processes: Pick<ProcessServiceShape, "signalGroup">) =>
  (cmd: ReadyCommand, attemptTimeout: Duration.DurationInput): Effect.Effect<ProbeAnswer> =>
    Effect.async<ProbeAnswer>((resume) => {
      let done = false
      let output = ""
      const finish = (ok: boolean, why: string) => {
        if (done) return
        done = true
        resume(
          Effect.succeed({ ok, output: answerOutput(output.trim() === "" ? why : `${output} (${why})`) }),
        )
      }
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString("utf8")).slice(-2 * ANSWER_OUTPUT_MAX)
      }
      let pid: number | undefined
      try {
        const child = spawnShell(cmd, ["ignore", "pipe", "pipe"])
        pid = child.pid
        child.stdout?.on("data", keep)
        child.stderr?.on("data", keep)
        child.once("error", (e) => finish(false, e.message))
        child.once("exit", (code, signal) => {
          pid = undefined
          const end = () => {
            child.stdout?.destroy()
            child.stderr?.destroy()
            finish(code === 0, code === null ? `killed by ${signal}` : `exit code ${code}`)
          }
          // its output read to the end, unless a process it left behind keeps the pipes open
          const late = setTimeout(end, OUTPUT_GRACE_MS)
          child.once("close", () => {
            clearTimeout(late)
            end()
          })
        })
      } catch (e) {
        finish(false, e instanceof Error ? e.message : String(e))
      }
      return Effect.suspend(() => (pid === undefined ? Effect.void : processes.signalGroup(pid, "SIGKILL")))
    }).pipe(
      Effect.timeoutTo({
        duration: attemptTimeout,
        onTimeout: () => ({
          ok: false,
          output: `\`${cmd.run}\` did not exit within ${formatHumanDuration(Duration.toMillis(Duration.decode(attemptTimeout)))}`,
        }),
        onSuccess: (a) => a,
      }),
    )

/** One `ready_cmd` attempt: true when the command exits 0. */
export const probeCmd =
  (processes: Pick<ProcessServiceShape, "signalGroup">) =>
  (cmd: ReadyCommand, attemptTimeout: Duration.DurationInput): Effect.Effect<boolean> =>
    Effect.map(cmdAnswer(processes)(cmd, attemptTimeout), (a) => a.ok)
