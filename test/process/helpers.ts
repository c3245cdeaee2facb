import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Duration, Effect } from "effect"
import { makeNodeProcessService } from "../../src/process/NodeProcessService.js"

/** A fresh directory, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "supervisor-process-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

/**
 * Polls `check` until it returns something other than undefined or false; fails after `within`.
 * Waiting on a condition with a deadline, never a fixed sleep.
 */
export const waitFor = <A>(
  what: string,
  check: () => A | undefined | false,
  within: Duration.DurationInput = "5 seconds",
): Effect.Effect<A, Error> =>
  Effect.gen(function* () {
    for (;;) {
      const value = check()
      if (value !== undefined && value !== false) return value
      yield* Effect.sleep("20 millis")
    }
  }).pipe(
    Effect.timeoutFail({ duration: within, onTimeout: () => new Error(`timed out waiting for ${what}`) }),
  )

export const readText = (file: string): string => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

/** `/proc/<pid>/stat` fields read independently of src/process/procfs.ts: [state, ppid, pgrp, session]. */
export const statOf = (
  pid: number,
): { state: string; ppid: number; pgrp: number; session: number; comm: string } | undefined => {
  let line: string
  try {
    line = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  const [state = "", ppid, pgrp, session] = line.slice(line.lastIndexOf(")") + 2).split(" ")
  return {
    state,
    ppid: Number(ppid),
    pgrp: Number(pgrp),
    session: Number(session),
    comm: line.slice(line.indexOf("(") + 1, line.lastIndexOf(")")),
  }
}

/** Live (not zombie) processes whose process group is `pgid`, from a scan of /proc. */
export const liveGroupMembers = (pgid: number): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid)
      return stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X"
    })

export const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"

/** Whether a process with this pid exists (zombies included). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The real process service's `signalGroup`, recording every call: proof a kill went through it. */
export const recordingSignals = () => {
  const sent: Array<{ readonly pgid: number; readonly signal: NodeJS.Signals }> = []
  const real = makeNodeProcessService()
  return {
    sent,
    service: {
      signalGroup: (pgid: number, signal: NodeJS.Signals) =>
        Effect.suspend(() => {
          sent.push({ pgid, signal })
          return real.signalGroup(pgid, signal)
        }),
    },
  }
}
