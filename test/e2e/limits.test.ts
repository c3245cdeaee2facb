/**
 * Memory and CPU limits through the built CLI, with real processes: the supervisor checks every
 * 500 ms (`SUPERVISOR_GENERAL_INTERVAL`). A memory hog that is a child of the daemon's shell and
 * a busy loop are killed and end errored, with the limit in `status` and in `logs`; an idle daemon
 * with both limits runs on; with `retry = 1` a killed daemon is restarted once.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  isAlive,
  makeDaemonSandbox,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)

// ~150 MB touched (resident) and held, in a child of the shell; allocated 300 ms after node starts,
// so past the 0.1 s ready delay: a limit check between spawn and ready would fail the start instead
const HOG = `node -e 'setTimeout(() => { const b = Buffer.alloc(150e6, 1); setInterval(() => b[0]++, 1000) }, 300)' & wait`

beforeAll(() => {
  sb = makeDaemonSandbox()
  sb.env.SUPERVISOR_GENERAL_INTERVAL = "500ms"
  dir = sb.project(
    "app",
    `
[daemons.idle]
run = "exec sleep 300"
ready_delay = 0.1
memory_limit = "80MB"
cpu_limit = 30

[daemons.hog]
run = "${HOG}"
ready_delay = 0.1
memory_limit = "80MB"

[daemons.busy]
run = "node -e 'for (;;) {}'"
ready_delay = 0.1
cpu_limit = 30

[daemons.again]
run = "echo run >> again.runs; ${HOG}"
ready_delay = 0.1
memory_limit = "80MB"
retry = 1
`,
  )
})
afterAll(() => sb.destroy())

const errored = (id: string, retries = 0) =>
  waitFor(
    `${id} to be killed`,
    async () => {
      const e = await daemonEntry(sb.stateDir, id)
      // the API's next_retry: null once no retry is pending
      const pending = (e as { readonly next_retry?: unknown } | undefined)?.next_retry ?? null
      const done = e?.status.type === "errored" && pending === null && e.pid === null
      return done && e.retry_count === retries ? e : undefined
    },
    { timeout: 30_000 },
  )

describe("limits (e2e)", () => {
  it(
    "a memory hog (a child of the shell) is killed and errored: `status` and `logs` say which limit",
    async () => {
      expect(cli("start", "idle").status).toBe(0)
      const idle = (await daemonEntry(sb.stateDir, "app/idle"))!
      const r = cli("start", "hog")
      expect(r.status, r.stderr).toBe(0)
      const pid = (await daemonEntry(sb.stateDir, "app/hog"))!.pid!
      const e = await errored("app/hog")
      expect(e.status.message).toMatch(/^killed: memory \d+\.\d MB over memory_limit 80 MB$/)
      expect(isAlive(pid)).toBe(false)
      // the whole group: the node child of the shell too
      await waitFor("the hog's group to be gone", () => daemonPids(sb.stateDir, "app/hog").length === 0)
      const status = cli("status", "hog")
      expect(status.stdout).toMatch(/Message:\s+killed: memory \d+\.\d MB over memory_limit 80 MB/)
      // `list` names the limit, not SIGKILL; the long status is cut before RUN becomes unreadable
      const list = sb.cli(["list"], dir, { ...sb.env, COLUMNS: "120" }).stdout
      const row = tableRow(list, "app/hog")!
      expect(row[1]).toMatch(/^errored \(killed: memory \d+\.\d MB over/)
      expect(row.at(-1)!.length).toBe(20)
      for (const line of list.split("\n")) expect(line.length).toBeLessThanOrEqual(120)
      const logs = cli("logs", "hog", "--no-timestamp").stdout.trim().split("\n")
      expect(logs.filter((l) => l.startsWith("[supervisor] killed:"))).toEqual([
        `[supervisor] ${e.status.message}`,
      ])
      // the idle daemon with both limits was checked all along and runs on
      const still = (await daemonEntry(sb.stateDir, "app/idle"))!
      expect(still.status.type).toBe("running")
      expect(still.pid).toBe(idle.pid)
    },
    T,
  )

  it(
    "a busy loop over cpu_limit is killed after the threshold; the idle daemon is not",
    async () => {
      const idle = (await daemonEntry(sb.stateDir, "app/idle"))!
      expect(cli("start", "busy").status).toBe(0)
      const e = await errored("app/busy")
      expect(e.status.message).toMatch(/^killed: cpu \d+% over cpu_limit 30% for 3 samples$/)
      const logs = cli("logs", "busy", "--no-timestamp").stdout
      expect(logs).toContain(`[supervisor] ${e.status.message}`)
      const still = (await daemonEntry(sb.stateDir, "app/idle"))!
      expect(still.status.type).toBe("running")
      expect(still.pid).toBe(idle.pid)
      expect(cli("logs", "idle", "--no-timestamp").stdout).not.toContain("killed")
    },
    T,
  )

  it(
    "with retry = 1 a daemon killed by its limit is restarted once, then stays errored",
    async () => {
      expect(cli("start", "again").status).toBe(0)
      const e = await errored("app/again", 1)
      expect(e.status.message).toMatch(/^killed: memory .* over memory_limit 80 MB$/)
      const runs = join(dir, "again.runs")
      expect(existsSync(runs) ? readFileSync(runs, "utf8").trim().split("\n") : []).toEqual(["run", "run"])
      const logs = cli("logs", "again", "--no-timestamp").stdout
      expect(logs.match(/\[supervisor\] killed: memory/g)).toHaveLength(2)
    },
    T,
  )
})
