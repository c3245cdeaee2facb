/**
 * Cron through the built CLI with a real supervisor: a daemon with a 6-field schedule in a known
 * project (a `supervisor list` in it is enough) runs again and again without anyone starting it;
 * `list --json` shows its next run. Each firing is a command of the protocol, counted in /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 40_000
let sb: DaemonSandbox
let dir: string

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    [
      "[daemons.tick]",
      'run = "echo tick-run"',
      "ready_delay = 0",
      'cron = "*/2 * * * * *"',
      "",
      "[daemons.busy]",
      'run = "exec sleep 300"',
      "ready_delay = 0",
      'cron = "*/2 * * * * *"',
      "",
      "[daemons.fresh]",
      'run = "exec sleep 300"',
      "ready_delay = 0",
      'cron = { schedule = "*/2 * * * * *", retrigger = "always" }',
      "",
      "[daemons.plain]",
      'run = "exec sleep 300"',
      "",
    ].join("\n"),
  )
  expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("cron (e2e)", () => {
  it(
    "a daemon with a 6-field cron fires repeatedly once its project is known; list --json shows next_run",
    async () => {
      const listed = sb.cli(["list", "--json"], dir)
      expect(listed.status, listed.stderr).toBe(0)
      const entries = JSON.parse(listed.stdout) as Array<{
        id: { qualified: string }
        next_run: string | null
      }>
      const tick = entries.find((e) => e.id.qualified === "app/tick")
      expect(tick?.next_run).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(Date.parse(tick?.next_run ?? "") - Date.now()).toBeLessThanOrEqual(2_500)
      expect(entries.find((e) => e.id.qualified === "app/plain")?.next_run).toBeNull()
      const runs = await waitFor(
        "two cron runs of app/tick",
        async () => {
          const lines = (await storedLogs(sb.stateDir, "app/tick")).map((e) => e.message)
          const fired = lines.filter((l) =>
            l.startsWith('[supervisor] cron: starting (schedule "*/2 * * * * *"'),
          )
          const ran = lines.filter((l) => l === "tick-run")
          return fired.length >= 2 && ran.length >= 2 ? { fired, ran } : undefined
        },
        { timeout: 15_000, interval: 200 },
      )
      expect(runs.ran.length).toBeGreaterThanOrEqual(2)
      // each firing was a Start command sent to the supervisor's one handler, from cron
      expect(await commandCount(sb.stateDir, "Start", "cron")).toBeGreaterThanOrEqual(runs.fired.length)
      // nobody started the other daemon
      expect((await daemonEntry(sb.stateDir, "app/plain"))?.status.type).toBe("available")
      const status = sb.cli(["status", "tick"], dir)
      expect(status.stdout).toMatch(/^Next run: \d{4}-/m)
    },
    T,
  )

  it(
    "finish skips while the previous run is still running (said once in the log); always restarts it",
    async () => {
      const lines = async (id: string) => (await storedLogs(sb.stateDir, id)).map((e) => e.message)
      const starts = (l: ReadonlyArray<string>) =>
        l.filter((x) => x.startsWith("[supervisor] cron: starting"))
      // busy: started by the first firing, then every firing is skipped, noted once
      await waitFor(
        "app/busy to be started by cron",
        async () =>
          starts(await lines("app/busy")).length === 1 &&
          (await daemonEntry(sb.stateDir, "app/busy"))?.status.type === "running",
        { timeout: 10_000, interval: 200 },
      )
      const first = (await daemonEntry(sb.stateDir, "app/busy"))?.pid
      await new Promise((r) => setTimeout(r, 4_500))
      const busy = await lines("app/busy")
      expect(starts(busy)).toHaveLength(1)
      expect(busy.filter((x) => x.startsWith("[supervisor] cron: skipped"))).toEqual([
        '[supervisor] cron: skipped (schedule "*/2 * * * * *"): the previous run is still running (retrigger = "finish")',
      ])
      expect((await daemonEntry(sb.stateDir, "app/busy"))?.pid).toBe(first)
      // fresh: a new process at each firing
      const pids = new Set<number>()
      await waitFor(
        "app/fresh to run with three different pids",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/fresh")
          if (e?.status.type === "running" && e.pid !== null) pids.add(e.pid)
          return pids.size >= 3
        },
        { timeout: 15_000, interval: 100 },
      )
      expect((await lines("app/fresh")).some((x) => x.startsWith("[supervisor] cron: restarting"))).toBe(true)
    },
    T,
  )
})
