import { Context, Duration, Effect, Layer } from "effect"
import type { HookName } from "../../domain/DaemonOptions.js"
import { ProcessService, type ProcessServiceShape } from "../../process/ProcessService.js"
import { type ShellCommand, spawnShell } from "../../process/shell.js"

export { HOOK_NAMES, type HookName } from "../../domain/DaemonOptions.js"

/** One hook run: the command and everything it runs with. */
export interface HookCommand extends ShellCommand {
  /** The qualified ID of the daemon the hook belongs to. */
  readonly daemon: string
  readonly hook: HookName
  /** After this the hook's whole process group is SIGKILLed. */
  readonly timeout: Duration.Duration
}

/** How a hook run ended. */
export type HookResult =
  | { readonly _tag: "Exited"; readonly code: number | null; readonly signal: string | null }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "SpawnFailed"; readonly message: string }

export interface HookRunnerShape {
  /** Runs the hook to its end (or its timeout); its output goes to the supervisor log. */
  readonly run: (command: HookCommand) => Effect.Effect<HookResult>
}

/** Runs hook commands; the live one spawns them, tests record them. */
export class HookRunner extends Context.Tag("supervisor/HookRunner")<HookRunner, HookRunnerShape>() {}

/** Splits a byte stream into lines, each passed to `line` (a last partial line at the end). */
const lines = (stream: NodeJS.ReadableStream | null, line: (text: string) => void) => {
  if (stream === null) return
  let rest = ""
  stream.setEncoding("utf8")
  stream.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n")
    rest = parts.pop() ?? ""
    for (const part of parts) line(part.replace(/\r$/, ""))
  })
  stream.on("end", () => {
    if (rest !== "") line(rest)
    rest = ""
  })
}

/**
 * The real runner: the command runs in its own process group with no stdin; each line it prints
 * (stdout and stderr) is written to `log` as `[hook <daemon> <hook>] <line>`, as is a failure
 * (non-zero exit, signal, timeout). The run ends at the shell's exit; a hook still running at its
 * timeout, or when interrupted, has its whole group SIGKILLed.
 */
export const liveHookRunner = (
  log: (line: string) => void,
  processes: Pick<ProcessServiceShape, "signalGroup">,
): HookRunnerShape => ({
  run: (cmd) => {
    const prefix = `[hook ${cmd.daemon} ${cmd.hook}]`
    return Effect.async<HookResult>((resume) => {
      let pid: number | undefined
      let done = false
      const finish = (result: HookResult) => {
        if (done) return
        done = true
        pid = undefined
        resume(Effect.succeed(result))
      }
      try {
        const child = spawnShell(cmd, ["ignore", "pipe", "pipe"])
        pid = child.pid
        lines(child.stdout, (l) => log(`${prefix} ${l}`))
        lines(child.stderr, (l) => log(`${prefix} ${l}`))
        child.once("error", (e) => finish({ _tag: "SpawnFailed", message: e.message }))
        child.once("exit", (code, signal) => finish({ _tag: "Exited", code, signal }))
      } catch (e) {
        finish({ _tag: "SpawnFailed", message: e instanceof Error ? e.message : String(e) })
      }
      return Effect.suspend(() => (pid === undefined ? Effect.void : processes.signalGroup(pid, "SIGKILL")))
    }).pipe(
      Effect.timeoutTo({
        duration: cmd.timeout,
        onTimeout: (): HookResult => ({ _tag: "TimedOut" }),
        onSuccess: (r) => r,
      }),
      Effect.tap((r) =>
        Effect.sync(() => {
          const why = describeFailure(r, cmd.timeout)
          if (why !== undefined) log(`${prefix} ${why}`)
        }),
      ),
    )
  },
})

/** A line for the supervisor log when a hook did not exit 0, else undefined. */
export const describeFailure = (r: HookResult, timeout: Duration.Duration): string | undefined => {
  switch (r._tag) {
    case "Exited":
      if (r.signal !== null) return `killed by ${r.signal}`
      return r.code === 0 ? undefined : `exited with code ${r.code}`
    case "TimedOut":
      return `still running after ${Duration.format(timeout)}: killed (settings.supervisor.hook_timeout)`
    case "SpawnFailed":
      return `could not be started: ${r.message}`
  }
}

/** The real runner, its lines in the supervisor's own log (stderr). */
export const HookRunnerLive = Layer.effect(
  HookRunner,
  Effect.map(ProcessService, (processes) =>
    liveHookRunner((line) => process.stderr.write(`${line}\n`), processes),
  ),
)
