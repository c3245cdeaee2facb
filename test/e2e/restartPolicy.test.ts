/**
 * Restart policies through the built CLI with real processes: `restart = "always"` restarts after
 * an exit 0 with the retry backoff and never after `stop`; `success_exit_codes` makes an exit code
 * a success for retries, `completed` dependencies and `wait`; `restart_dependents` restarts a
 * running dependent once its dependency is ready again, in the order the event stream shows.
 * Time gaps are lower bounds only (a loaded machine makes them longer).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  type Running,
  spawnCli,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
let follower: Running
const cli = (...args: Array<string>) => sb.cli(args, dir)

const TOML = `namespace = "app"

[daemons.blink]
run = 'echo "$SUPERVISOR_RETRY_COUNT $(date +%s%3N)" >> blink.runs; sleep 0.3; exit 0'
ready_delay = 0.1
restart = "always"

[daemons.task]
run = 'echo "$SUPERVISOR_RETRY_COUNT" >> task.runs; exit $(cat task.code)'
ready_delay = 5
retry = 2
success_exit_codes = [0, 3]

[daemons.after]
run = "exec sleep 300"
ready_delay = 0.1
depends = [{ id = "task", condition = "completed" }]

[daemons.db]
run = 'echo "db up"; exec sleep 300'
ready_delay = 0.5
restart_dependents = true

[daemons.api]
run = 'echo "api up"; exec sleep 300'
ready_delay = 0.1
depends = ["db"]
`

/** The lines of a file the daemons append to (none when it does not exist yet). */
const lines = (file: string): Array<string> => {
  const path = join(dir, file)
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n") : []
}

interface Item {
  readonly _tag: string
  readonly seq: number
  readonly id?: string
  readonly to?: string
  readonly reason?: string
  readonly source?: string
  readonly action?: string
  readonly detail?: string
}
const events = (): Array<Item> =>
  follower
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Item)

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project("app", TOML)
  expect(cli("supervisor", "start").status).toBe(0)
  follower = spawnCli(["events", "--json", "--since", "0"], { cwd: dir, env: sb.env })
})
afterAll(() => {
  follower?.child.kill("SIGTERM")
  sb.destroy()
})

describe('restart = "always" (e2e)', () => {
  it(
    "restarts a daemon after exit 0 with the backoff, counted and logged, and never after stop",
    async () => {
      const started = cli("start", "blink")
      expect(started.status, started.stderr).toBe(0)
      await waitFor("three runs of blink", () => lines("blink.runs").length >= 3, { timeout: 30_000 })
      const runs = lines("blink.runs").map((l) => l.split(" ").map(Number) as [number, number])
      expect(runs.slice(0, 3).map(([count]) => count)).toEqual([0, 1, 2])
      // each run lasts 0.3 s, then the backoff: at least 1 s, then 2 s
      expect(runs[1]![1] - runs[0]![1]).toBeGreaterThanOrEqual(1000)
      expect(runs[2]![1] - runs[1]![1]).toBeGreaterThanOrEqual(2000)
      const logged = (await storedLogs(sb.stateDir, "app/blink")).map((e) => e.message)
      expect(logged).toEqual(
        expect.arrayContaining([
          "[supervisor] exited with code 0",
          "[supervisor] restarting: restart 1 (restart = always)",
          "[supervisor] restarting: restart 2 (restart = always)",
        ]),
      )
      // stopped (running or in its backoff): no restart is pending, and `wait` is over at once
      expect(cli("stop", "blink").status).toBe(0)
      const entry = await daemonEntry(sb.stateDir, "app/blink")
      expect(entry?.status.type).toBe("stopped")
      expect((entry as unknown as { next_retry: unknown }).next_retry).toBeNull()
      const waited = cli("wait", "blink", "--json")
      expect(JSON.parse(waited.stdout)).toMatchObject({ id: "app/blink", status: "stopped" })
      const after = lines("blink.runs").length
      // longer than any backoff it had reached: a restart would have come by now
      await new Promise((r) => setTimeout(r, 5000))
      expect(lines("blink.runs").length).toBe(after)
      expect((await daemonEntry(sb.stateDir, "app/blink"))?.status.type).toBe("stopped")
    },
    T,
  )
})

describe("success_exit_codes (e2e)", () => {
  it(
    "[0, 3]: exit 3 is a success (no retry, completed dependency met, wait exits 0); exit 4 is a failure",
    async () => {
      writeFileSync(join(dir, "task.code"), "3")
      const done = cli("start", "task")
      expect(done.status, done.stderr).toBe(0)
      expect(lines("task.runs")).toEqual(["0"])
      const entry = await daemonEntry(sb.stateDir, "app/task")
      expect(entry?.status).toMatchObject({ type: "stopped", exit_code: 3 })
      const waited = cli("wait", "task", "--json")
      expect(waited.status).toBe(0)
      expect(JSON.parse(waited.stdout)).toMatchObject({ status: "stopped", exit_code: 3, success: true })
      // `after` waits for task to complete: exit 3 completes it
      const after = cli("start", "after")
      expect(after.status, after.stderr).toBe(0)
      expect(lines("task.runs")).toEqual(["0", "0"])
      expect((await daemonEntry(sb.stateDir, "app/after"))?.status.type).toBe("running")
      expect(cli("stop", "after").status).toBe(0)

      writeFileSync(join(dir, "task.code"), "4")
      const failed = cli("start", "after")
      expect(failed.status).toBe(1)
      expect(failed.stderr).toContain("app/task exited with code 4 (after 2 retries)")
      expect(failed.stderr).toContain("not started: its dependency app/task did not complete")
      // retried twice after the first run
      expect(lines("task.runs")).toEqual(["0", "0", "0", "1", "2"])
      expect((await daemonEntry(sb.stateDir, "app/task"))?.status).toMatchObject({
        type: "errored",
        exit_code: 4,
      })
      expect(cli("wait", "task").status).toBe(4)
    },
    T,
  )
})

describe("restart_dependents (e2e)", () => {
  it(
    "restarting a dependency restarts its running dependent after the dependency is ready again",
    async () => {
      const started = cli("start", "api")
      expect(started.status, started.stderr).toBe(0)
      const before = await daemonEntry(sb.stateDir, "app/api")
      expect(before?.status.type).toBe("running")
      // the event follower runs beside the CLI: the start's own events are behind `from` once it
      // has shown api ready
      await waitFor("the follower to show api's start", () =>
        events().some((e) => e._tag === "ReadinessPassed" && e.id === "app/api"),
      )
      const from = events().length
      const restarted = cli("restart", "db")
      expect(restarted.status, restarted.stderr).toBe(0)
      const api = await waitFor(
        "api restarted and running",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/api")
          return e !== undefined && e.pid !== before?.pid && e.status.type === "running" ? e : undefined
        },
        { timeout: 15_000 },
      )
      expect(api.pid).not.toBeNull()
      await waitFor("api's readiness event", () =>
        events().some((e, i) => i >= from && e._tag === "ReadinessPassed" && e.id === "app/api"),
      )
      const seen = events().slice(from)
      const at = (pred: (e: Item) => boolean, what: string) => {
        const i = seen.findIndex(pred)
        if (i < 0) throw new Error(`no ${what} in ${JSON.stringify(seen)}`)
        return seen[i]!.seq
      }
      const dbStopping = at(
        (e) => e.id === "app/db" && e.to === "stopping" && e.reason === "cli",
        "db stopping",
      )
      const dbReady = at((e) => e._tag === "ReadinessPassed" && e.id === "app/db", "db ready")
      const apiStopping = at(
        (e) => e.id === "app/api" && e.to === "stopping" && e.reason === "dependency",
        "api stopping for its dependency",
      )
      const apiReady = at((e) => e._tag === "ReadinessPassed" && e.id === "app/api", "api ready")
      // db went down and came back first; only then was api restarted
      expect(dbStopping).toBeLessThan(dbReady)
      expect(dbReady).toBeLessThan(apiStopping)
      expect(apiStopping).toBeLessThan(apiReady)
      expect(seen).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            _tag: "AutomationAction",
            id: "app/api",
            source: "dependency",
            action: "restart",
            detail: "app/db restarted",
          }),
        ]),
      )
      // api is ready 0.1 s after its spawn, its echo maybe not yet stored
      const logged = await waitFor("api's second start in its log", async () => {
        const m = (await storedLogs(sb.stateDir, "app/api")).map((e) => e.message)
        return m.filter((x) => x === "api up").length >= 2 ? m : undefined
      })
      expect(logged).toContain("[supervisor] restarting: dependency (app/db restarted)")
      expect(logged.filter((m) => m === "api up")).toHaveLength(2)
    },
    T,
  )

  it(
    "a command restarting the dependency and its dependent together (names, --all) restarts the dependent once",
    async () => {
      const started = await sb.cliAsync(["start", "api"], dir)
      expect(started.status, started.stderr).toBe(0)
      const spawnsOfApi = async () =>
        (await storedLogs(sb.stateDir, "app/api")).filter((e) => e.message === "api up").length
      const before = await spawnsOfApi()
      const from = events().length
      const both = await sb.cliAsync(["restart", "db", "api"], dir)
      expect(both.status, both.stderr).toBe(0)
      // every running daemon: db and api
      const all = await sb.cliAsync(["restart", "--all"], dir)
      expect(all.status, all.stderr).toBe(0)
      // then db alone: its cascade restarts api. The cascade reads the events in order, so once
      // that restart is seen it has decided on the commands' readiness of db as well
      const alone = await sb.cliAsync(["restart", "db"], dir)
      expect(alone.status, alone.stderr).toBe(0)
      const seen = await waitFor(
        "api restarted for db's restart alone and ready",
        () => {
          const after = events().slice(from)
          const dbStops = after.filter((e) => e.id === "app/db" && e.to === "stopping")
          if (dbStops.length < 3) return undefined
          const last = after.findLastIndex((e) => e._tag === "ReadinessPassed" && e.id === "app/api")
          const cascade = after.findIndex(
            (e) =>
              e.id === "app/api" &&
              e.to === "stopping" &&
              e.reason === "dependency" &&
              e.seq > dbStops[1]!.seq,
          )
          return cascade >= 0 && last > cascade ? after : undefined
        },
        { timeout: 20_000 },
      )
      // api's stops: the two commands', then db's own restart's cascade; none for the commands' db
      const apiStops = seen.filter((e) => e.id === "app/api" && e.to === "stopping").map((e) => e.reason)
      expect(apiStops).toEqual(["cli", "cli", "dependency"])
      // each start's echo reaches the log after its 0.1 s readiness: waited for, then counted
      await waitFor("api's three starts in its log", async () => (await spawnsOfApi()) >= before + 3)
      expect(await spawnsOfApi()).toBe(before + 3)
    },
    T,
  )
})

describe("config validate: the new keys (e2e)", () => {
  it(
    "refuses bad values and restart = always with cron, naming the file, line and key",
    () => {
      const bad = sb.project(
        "bad",
        [
          "[daemons.a]",
          'run = "x"',
          'restart = "sometimes"',
          "",
          "[daemons.b]",
          'run = "x"',
          "success_exit_codes = [0, 3.5, 300]",
          "",
          "[daemons.c]",
          'run = "x"',
          'cron = "0 0 * * * *"',
          'restart = "always"',
          "",
        ].join("\n"),
      )
      const file = join(bad, "supervisor.toml")
      const r = sb.cli(["config", "validate"], bad)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(`${file}:3: daemons.a.restart: invalid value "sometimes"`)
      expect(r.stderr).toContain(
        `${file}:7: daemons.b.success_exit_codes[1]: expected an exit code: a whole number from 0 to 255`,
      )
      expect(r.stderr).toContain(`${file}:7: daemons.b.success_exit_codes[2]: expected an exit code`)
      expect(r.stderr).toContain(
        `${file}:12: daemons.c.restart: restart = "always" and \`cron\` are both set`,
      )
      expect(r.stderr).toContain("4 problems found")
      const json = sb.cli(["config", "validate", "--json"], bad)
      expect(JSON.parse(json.stdout).problems.map((p: { key: string }) => p.key)).toEqual([
        "daemons.a.restart",
        "daemons.b.success_exit_codes[1]",
        "daemons.b.success_exit_codes[2]",
        "daemons.c.restart",
      ])
    },
    T,
  )
})
