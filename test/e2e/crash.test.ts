/**
 * Races and crashes with real processes: concurrent starts of one daemon,
 * CLIs racing to auto-start the supervisor, a SIGKILLed supervisor whose
 * daemon is re-adopted with no output lost, a corrupt state file. A fresh
 * sandbox (HOME, state dir, project) and supervisor per test.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { readStateFile } from "../../src/state/stateFile.js"
import {
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  isAlive,
  makeDaemonSandbox,
  storedLogs,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000

const CONFIG = `
[daemons.one]
run = "exec sleep 300"
ready_delay = 0.5

[daemons.ticker]
run = "exec sh ticker.sh"
ready_delay = 0.2

[daemons.plain]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.sturdy]
run = "exec sleep 300"
ready_delay = 0.2
retry = 1
`

/** Prints tick 1, tick 2, ... every 50 ms; when `mark` exists, prints a marker line and deletes it. */
const TICKER = `i=0
while :; do
  i=$((i+1))
  echo "tick $i"
  if [ -f mark ]; then echo "written while no supervisor ran"; rm mark; fi
  sleep 0.05
done
`

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)
const cliAsync = (...args: Array<string>) => sb.cliAsync(args, proj)

beforeEach(() => {
  sb = makeDaemonSandbox()
  proj = sb.project("race", CONFIG)
  sb.write({ "race/ticker.sh": TICKER })
})
afterEach(() => sb.destroy(), T)

describe("concurrency", () => {
  it(
    "three CLIs racing to auto-start the supervisor end up on one supervisor",
    async () => {
      expect(supervisorPids(sb.stateDir)).toEqual([])
      const results = await Promise.all([cliAsync("list"), cliAsync("list", "--json"), cliAsync("ls")])
      for (const r of results) expect(r.status, r.stderr).toBe(0)
      // a loser of the race exits on its own once it fails to take the lock
      const [pid] = await waitFor("exactly one supervisor", () => {
        const pids = supervisorPids(sb.stateDir)
        return pids.length === 1 ? pids : undefined
      })
      const info = JSON.parse(cli("supervisor", "status", "--json").stdout)
      expect(info.pid).toBe(pid)
      expect(supervisorPids(sb.stateDir)).toEqual([pid])
    },
    T,
  )

  it(
    "concurrent start of the same daemon from three CLIs yields exactly one process",
    async () => {
      // no supervisor yet: the starts race on the auto-start as well
      const results = await Promise.all([
        cliAsync("start", "one"),
        cliAsync("start", "one"),
        cliAsync("start", "one"),
      ])
      for (const r of results) expect(r.status, r.stdout + r.stderr).toBe(0)
      const pids = results.map((r) => Number(/\(pid (\d+)\)/.exec(r.stdout)?.[1]))
      expect(new Set(pids).size, results.map((r) => r.stdout).join("\n")).toBe(1)
      expect(results.filter((r) => r.stdout.includes("is running (pid")).length).toBe(1)
      expect(results.filter((r) => r.stdout.includes("already running")).length).toBe(2)
      expect(daemonPids(sb.stateDir, "race/one")).toEqual([pids[0]])
      expect(supervisorPids(sb.stateDir).length).toBe(1)
    },
    T,
  )

  it(
    "concurrent restarts and starts are serialised: one process at the end, the old one gone",
    async () => {
      expect(cli("start", "one").status).toBe(0)
      const first = daemonPids(sb.stateDir, "race/one")
      expect(first).toHaveLength(1)
      const results = await Promise.all([
        cliAsync("restart", "one"),
        cliAsync("restart", "one"),
        cliAsync("start", "one", "--force"),
        cliAsync("start", "one"),
      ])
      const now = daemonPids(sb.stateDir, "race/one")
      expect(now).toHaveLength(1)
      expect(now[0]).not.toBe(first[0])
      expect(isAlive(first[0]!)).toBe(false)
      // Serialised means each request completes in turn: no restart is cut short by another.
      for (const r of results)
        expect(r.status, `a concurrent restart/start failed:\n${r.stdout}${r.stderr}`).toBe(0)
      expect((await daemonEntry(sb.stateDir, "race/one"))?.pid).toBe(now[0])
    },
    T,
  )

  it(
    "concurrent start and stop leave no stray process",
    async () => {
      expect(cli("start", "plain").status).toBe(0)
      await Promise.all([cliAsync("stop", "plain"), cliAsync("restart", "plain"), cliAsync("stop", "plain")])
      const e = await daemonEntry(sb.stateDir, "race/plain")
      const pids = daemonPids(sb.stateDir, "race/plain")
      if (e?.status.type === "running") expect(pids).toEqual([e.pid])
      else expect(pids).toEqual([])
    },
    T,
  )
})

describe("supervisor crash", () => {
  it(
    "after SIGKILL of the supervisor, the next CLI command re-adopts the running daemon; no output is lost; stop works",
    async () => {
      expect(cli("start", "ticker").status).toBe(0)
      const entry = await daemonEntry(sb.stateDir, "race/ticker")
      const daemonPid = entry!.pid!
      await waitFor(
        "ticks in the log",
        async () => (await storedLogs(sb.stateDir, "race/ticker")).length >= 3,
      )
      const [supervisor] = supervisorPids(sb.stateDir)
      process.kill(supervisor!, "SIGKILL")
      await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))

      // The daemon outlives it and keeps writing: this line is written while no supervisor runs.
      expect(isAlive(daemonPid)).toBe(true)
      writeFileSync(join(proj, "mark"), "")
      await waitFor("the daemon to print its marker", () => !readdirSync(proj).includes("mark"))
      expect(supervisorPids(sb.stateDir)).toEqual([])

      // Any command brings a new supervisor up, which takes the daemon back.
      const r = cli("status", "ticker", "--json")
      expect(r.status, r.stderr).toBe(0)
      const adopted = JSON.parse(r.stdout)
      expect(adopted.status.type).toBe("running")
      expect(adopted.pid).toBe(daemonPid)
      const [next] = supervisorPids(sb.stateDir)
      expect(next).toBeDefined()
      expect(next).not.toBe(supervisor)

      // Every line: the marker, and ticks 1..n without a gap, across the downtime.
      const logs = await waitFor("the marker in the logs", async () => {
        const es = await storedLogs(sb.stateDir, "race/ticker")
        return es.some((e) => e.message === "written while no supervisor ran") ? es : undefined
      })
      const ticks = logs.filter((e) => e.message.startsWith("tick ")).map((e) => Number(e.message.slice(5)))
      expect(ticks[0]).toBe(1)
      expect(ticks, "no tick may be lost or duplicated").toEqual(ticks.map((_, i) => i + 1))
      for (let i = 1; i < logs.length; i++) expect(logs[i]!.id).toBeGreaterThan(logs[i - 1]!.id)
      const human = cli("logs", "ticker", "--no-timestamp", "-n", "100000")
      expect(human.stdout).toContain("written while no supervisor ran")

      // The adopted daemon is tracked: stop ends it (and its sleep children).
      const s = cli("stop", "ticker")
      expect(s.status, s.stderr).toBe(0)
      expect(s.stdout).toContain("race/ticker stopped")
      expect(isAlive(daemonPid)).toBe(false)
      expect(daemonPids(sb.stateDir, "race/ticker")).toEqual([])
      expect((await daemonEntry(sb.stateDir, "race/ticker"))?.status.type).toBe("stopped")
    },
    T,
  )

  it(
    "a daemon that died while no supervisor ran is a crash: errored (exit status unknown), its pid never signalled, retried when it has a retry left",
    async () => {
      expect(cli("start", "plain", "sturdy").status).toBe(0)
      const plain = (await daemonEntry(sb.stateDir, "race/plain"))!.pid!
      const sturdy = (await daemonEntry(sb.stateDir, "race/sturdy"))!.pid!
      const [supervisor] = supervisorPids(sb.stateDir)
      process.kill(supervisor!, "SIGKILL")
      await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
      for (const pid of [plain, sturdy]) process.kill(pid, "SIGKILL")
      await waitFor("the daemons to be gone", () => !isAlive(plain) && !isAlive(sturdy))
      const e = JSON.parse(cli("status", "plain", "--json").stdout)
      expect(e.status).toMatchObject({
        type: "errored",
        exit_code: null,
        message: "exited while the supervisor was not running; its exit status is unknown",
      })
      expect(e.pid).toBeNull()
      // sturdy had a retry left: it runs again after the backoff, with a new pid
      await waitFor("sturdy to run again", async () => {
        const r = await daemonEntry(sb.stateDir, "race/sturdy")
        return r?.status.type === "running" && r.pid !== null && r.pid !== sturdy
      })
      expect((await daemonEntry(sb.stateDir, "race/sturdy"))?.retry_count).toBe(1)
      // and plain can be started again
      expect(cli("start", "plain").status).toBe(0)
      expect(daemonPids(sb.stateDir, "race/plain")).toHaveLength(1)
    },
    T,
  )

  it("a retry pending when the supervisor is stopped is resumed by the next supervisor", async () => {
    sb.write({
      "race/supervisor.local.toml":
        '[daemons.flaky]\nrun = "sleep 0.2; exit 3"\nready_delay = 0\nretry = 5\n',
    })
    expect(cli("start", "flaky").status).toBe(0)
    // a retry 8 s away (the backoff doubles from 1 s): the stop below reaches the supervisor
    // while it is still pending, however busy the machine
    await waitFor(
      "flaky to crash and wait 8 s for its fourth retry",
      async () => {
        const e = (await daemonEntry(sb.stateDir, "race/flaky")) as
          | {
              readonly status: { readonly type: string }
              readonly next_retry?: { readonly due_in_ms: number } | null
            }
          | undefined
        return e?.status.type === "errored" && (e.next_retry?.due_in_ms ?? 0) > 4_000
      },
      { timeout: 40_000 },
    )
    expect(cli("supervisor", "stop").status).toBe(0)
    const saved = readStateFile(join(sb.stateDir, "state.json")).state.daemons["race/flaky"]
    expect(saved).toMatchObject({ status: { type: "errored", exit_code: 3 }, retry_pending: true })
    // any command brings the supervisor back; the retries go on from where they were
    expect(cli("list").status).toBe(0)
    const retried = (saved as { readonly retry_count: number }).retry_count
    await waitFor(
      "flaky to be retried",
      async () => ((await daemonEntry(sb.stateDir, "race/flaky"))?.retry_count ?? 0) > retried,
      { timeout: 30_000 },
    )
  }, 60_000)
})

describe("corrupt state file", () => {
  it.each([
    ["truncated JSON", (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ["garbage", () => "\u0000\u0001 this is not json {{{"],
    ["valid JSON of the wrong shape", () => '{"version": 99, "daemons": []}'],
  ])(
    "%s is survived: the supervisor starts, says so in its log, and works",
    async (_, corrupt) => {
      expect(cli("start", "plain").status).toBe(0)
      expect(cli("supervisor", "stop").status).toBe(0)
      const stateFile = join(sb.stateDir, "state.json")
      writeFileSync(stateFile, corrupt(readFileSync(stateFile, "utf8")))

      const r = cli("list", "--json")
      expect(r.status, r.stderr).toBe(0)
      expect(supervisorPids(sb.stateDir)).toHaveLength(1)
      const log = readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
      expect(log).toMatch(
        /the state file .*state\.json was not valid .*it was kept as .*state\.json\.corrupt-\d+/,
      )
      expect(readdirSync(sb.stateDir).some((f) => f.startsWith("state.json.corrupt-"))).toBe(true)

      const s = cli("start", "plain")
      expect(s.status, s.stderr).toBe(0)
      expect(daemonPids(sb.stateDir, "race/plain")).toHaveLength(1)
      // and the new state is written properly again
      expect(readStateFile(stateFile).state.daemons["race/plain"]?.status.type).toBe("running")
    },
    T,
  )
})
