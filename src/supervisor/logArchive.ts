// `logs.archive_hook.command`: the lines about to be pruned, as JSON lines on the command's stdin.
import { Duration, Effect } from "effect"
import type { ProcessServiceShape } from "../process/ProcessService.js"
import { spawnShell } from "../process/shell.js"

/** One run of the archive command. */
export interface ArchiveRun {
  readonly daemon: string
  /** `age` (time_retention) or `count` (line_retention). */
  readonly reason: "age" | "count"
  /** The JSON lines, each ending with a newline. */
  readonly input: string
}

/** Runs the archive command; true when it exited 0. */
export type ArchiveRunner = (run: ArchiveRun) => Effect.Effect<boolean>

export interface ArchiveCommand {
  readonly command: string
  readonly shell: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeout: Duration.Duration
  /** Where its output and its failures are told (the supervisor's log). */
  readonly log: (line: string) => void
}

const namespaceOf = (id: string) => id.slice(0, id.indexOf("/"))

/**
 * The real runner: `<shell> <command>` in its own process group in the home directory, with
 * SUPERVISOR_DAEMON_ID, SUPERVISOR_DAEMON_NAMESPACE and SUPERVISOR_ARCHIVE_REASON set; what it
 * prints goes to the supervisor's log; killed (its whole group, through the process service) at
 * the timeout.
 */
export const liveArchiveRunner =
  (cmd: ArchiveCommand, processes: Pick<ProcessServiceShape, "signalGroup">): ArchiveRunner =>
  (run) => {
    const prefix = `[archive ${run.daemon}]`
    return Effect.async<boolean>((resume) => {
      let pid: number | undefined
      let done = false
      const finish = (ok: boolean, why?: string) => {
        if (done) return
        done = true
        pid = undefined
        if (why !== undefined) cmd.log(`${prefix} ${why}`)
        resume(Effect.succeed(ok))
      }
      try {
        const env: Record<string, string> = {}
        for (const [k, v] of Object.entries(cmd.env)) if (v !== undefined) env[k] = v
        const child = spawnShell(
          {
            run: cmd.command,
            shell: cmd.shell,
            cwd: env.HOME ?? "/",
            env: {
              ...env,
              SUPERVISOR_DAEMON_ID: run.daemon,
              SUPERVISOR_DAEMON_NAMESPACE: namespaceOf(run.daemon),
              SUPERVISOR_ARCHIVE_REASON: run.reason,
            },
          },
          ["pipe", "pipe", "pipe"],
        )
        pid = child.pid
        for (const stream of [child.stdout, child.stderr]) {
          stream?.setEncoding("utf8")
          let rest = ""
          stream?.on("data", (chunk: string) => {
            const parts = (rest + chunk).split("\n")
            rest = parts.pop() ?? ""
            for (const part of parts) cmd.log(`${prefix} ${part}`)
          })
          stream?.on("end", () => {
            if (rest !== "") cmd.log(`${prefix} ${rest}`)
          })
        }
        // a command that does not read all its input must not make this fail: EPIPE is ignored
        child.stdin?.on("error", () => {})
        child.stdin?.end(run.input)
        child.once("error", (e) => finish(false, `cannot run: ${e.message}`))
        child.once("close", (code, signal) =>
          finish(
            code === 0,
            code === 0 ? undefined : `exited with ${code === null ? `signal ${signal}` : `code ${code}`}`,
          ),
        )
      } catch (e) {
        finish(false, `cannot run: ${e instanceof Error ? e.message : String(e)}`)
      }
      // on the timeout (or an interruption): the whole group, whatever it left running
      return Effect.suspend(() => (pid === undefined ? Effect.void : processes.signalGroup(pid, "SIGKILL")))
    }).pipe(
      Effect.timeoutTo({ duration: cmd.timeout, onTimeout: () => undefined, onSuccess: (ok) => ok }),
      Effect.flatMap((ok) =>
        ok === undefined
          ? Effect.sync(() => {
              cmd.log(`${prefix} timed out after ${Duration.format(cmd.timeout)}`)
              return false
            })
          : Effect.succeed(ok),
      ),
    )
  }
