import { spawnSync } from "node:child_process"
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { apiGet, type DaemonSandbox, isAlive, supervisorPids, waitFor } from "../e2e/harness.js"

// Shared by test/faults/storage*.test.ts: a full disk, a broken state file, an unwritable log
// directory, through the built CLI. Faults are real where the test can make them (a tmpfs as
// root), else injected at the file-system layer (SUPERVISOR_FAULTS_FILE), which always runs.

/** Repetitions: `FAULT_ROUNDS` for the full run (`npm run test:faults`), else a bounded 1. */
export const ROUNDS = Math.max(1, Number(process.env.FAULT_ROUNDS ?? "1") || 1)

export const isRoot = process.getuid?.() === 0

export interface StorageProblem {
  readonly area: string
  readonly file: string
  readonly code: string
  readonly message: string
  readonly failed_writes: number
}

interface Info {
  readonly pid: number
  readonly storage_problems: ReadonlyArray<StorageProblem>
}

/** The running supervisor's problems (from the API: no CLI start-up per poll). */
export const problems = async (stateDir: string): Promise<ReadonlyArray<StorageProblem> | undefined> =>
  (await apiGet<Info>(stateDir, "/api/cli/supervisor"))?.storage_problems

/** Writes the faults file: `<CODE> <path prefix>` lines; empty: no fault. Returns its path. */
export const setFaults = (file: string, lines: ReadonlyArray<string>): string => {
  writeFileSync(file, lines.map((l) => `${l}\n`).join(""))
  return file
}

/** A sandbox whose CLIs (and so the supervisor they start) read faults from `faults`. */
export const withFaults = (sb: DaemonSandbox): string => {
  const faults = join(sb.root, "faults")
  setFaults(faults, [])
  sb.env.SUPERVISOR_FAULTS_FILE = faults
  return faults
}

/** The one supervisor of the sandbox, alive. */
export const onlySupervisor = (sb: DaemonSandbox): number => {
  const pids = supervisorPids(sb.stateDir)
  if (pids.length !== 1 || !isAlive(pids[0]!)) throw new Error(`expected one supervisor, found ${pids}`)
  return pids[0]!
}

/** A project whose daemon `ticker` prints `tick <n>` every 20 ms: the test checks that none is lost. */
export const tickerProject = (sb: DaemonSandbox, extra = ""): string => {
  const dir = sb.project("app", `[daemons.ticker]\nrun = "node ticker.js"\n${extra}`)
  writeFileSync(
    join(dir, "ticker.js"),
    "let n = 0\nsetInterval(() => { try { process.stdout.write('tick ' + ++n + '\\n') } catch {} }, 20)\n",
  )
  return dir
}

/**
 * Ticks missing among `messages`: each run counts 1, 2, 3, ... (a restart starts again at 1), so
 * a tick that is neither 1 nor one more than the previous one follows a gap.
 */
export const tickGaps = (messages: ReadonlyArray<string>): Array<number> => {
  const ticks = messages.flatMap((m) => {
    const t = /^tick (\d+)$/.exec(m)
    return t === null ? [] : [Number(t[1])]
  })
  return ticks.filter((t, i) => i > 0 && t !== 1 && t !== ticks[i - 1]! + 1)
}

/** Waits for the supervisor to report no problem (the fault removed, writes work again). */
export const waitClear = (stateDir: string, timeout = 15_000) =>
  waitFor("storage problems cleared", async () => (await problems(stateDir))?.length === 0, { timeout })

export const run = (cmd: string, args: ReadonlyArray<string>) => {
  const r = spawnSync(cmd, args, { encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`)
}

/** Mounts a tmpfs of `size` on `dir` (root only); `umount` in afterAll. */
export const mountTmpfs = (dir: string, size: string) =>
  run("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir])

export const umount = (dir: string) => {
  if (existsSync(dir)) spawnSync("umount", ["-l", dir])
}

/** Appends to `file` until the disk refuses a byte: its last block full, its next write fails. */
export const fillToTheBrim = (file: string): void => {
  const fd = openSync(file, "a")
  try {
    for (let i = 0; i < 65_536; i++) writeSync(fd, "\n")
  } catch {
    // ENOSPC: full
  } finally {
    closeSync(fd)
  }
}
