/**
 * How daemons end: the stop signal goes to the whole process group, SIGKILL
 * follows after the stop timeout, `stop_signal` is honoured, and a daemon that
 * dies on its own is reported with its exit code or signal. Real processes,
 * one supervisor for the file.
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
  waitFor,
} from "./harness.js"

const T = 30_000

// a daemon that traps a signal is ready once its trap is set (a line after it): a stop sooner
// would find the shell's default
const CONFIG = `
[daemons.family]
run = "sleep 300 & sleep 300 & wait"
ready_delay = 0.2

[daemons.nested]
run = "sh -c 'sleep 300 & wait' & sh -c 'exec sleep 300' & wait"
ready_delay = 0.2

[daemons.stubborn]
run = "trap '' TERM; echo ignoring TERM; exec sleep 300"
ready_output = "^ignoring TERM$"
stop_signal = { signal = "TERM", timeout = "1s" }

[daemons.stubbornchild]
run = "(trap '' TERM; echo armed; exec sleep 300) & wait"
ready_output = "^armed$"
stop_signal = { signal = "SIGTERM", timeout = "1s" }

[daemons.slowsettings]
run = "trap '' TERM; echo armed; exec sleep 300"
ready_output = "^armed$"

[daemons.polite]
run = "trap 'echo INT > int.marker; exit 0' INT; trap 'echo TERM > term.marker; exit 0' TERM; echo waiting; while :; do sleep 1; done"
ready_output = "^waiting$"
stop_signal = "INT"

[daemons.usr1]
run = "trap 'echo USR1 > usr1.marker; exit 0' USR1; echo armed; while :; do sleep 1; done"
ready_output = "^armed$"
stop_signal = { signal = "USR1", timeout = "3s" }

[daemons.victim]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.crasher]
run = "echo attempt $SUPERVISOR_RETRY_COUNT; sleep 0.3; exit 2"
ready_delay = 0.1
retry = 1

[daemons.envd]
run = "echo id=$SUPERVISOR_DAEMON_ID ns=$SUPERVISOR_DAEMON_NAMESPACE retry=$SUPERVISOR_RETRY_COUNT greeting=$GREETING cwd=$(pwd); exec sleep 300"
ready_delay = 0.3
dir = "sub"
env = { GREETING = "hello" }
`

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)
const entry = async (name: string) => (await daemonEntry(sb.stateDir, `life/${name}`))!
const start = async (name: string) => {
  const r = cli("start", name)
  expect(r.status, r.stdout + r.stderr).toBe(0)
  const pid = (await entry(name)).pid
  expect(pid).not.toBeNull()
  return pid!
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  // A global setting the supervisor reads at start: the default stop timeout.
  sb.write({ "home/.config/supervisor/config.toml": '[settings.supervisor]\nstop_timeout = "1s"\n' })
  proj = sb.project("life", CONFIG)
  sb.dir("life/sub")
}, T)
afterAll(() => sb.destroy(), T)

describe("stop: the whole process group", () => {
  it(
    "a stopped daemon's children are gone too (sh -c 'sleep 300 & sleep 300 & wait')",
    async () => {
      const pid = await start("family")
      const members = await waitFor("the shell and its two sleeps", () => {
        const pids = daemonPids(sb.stateDir, "life/family")
        return pids.length === 3 ? pids : undefined
      })
      expect(members).toContain(pid)
      const r = cli("stop", "family")
      expect(r.status, r.stderr).toBe(0)
      for (const p of members) expect(isAlive(p), `pid ${p} survived the stop`).toBe(false)
      expect(daemonPids(sb.stateDir, "life/family")).toEqual([])
    },
    T,
  )

  it(
    "grandchildren in nested shells are gone too",
    async () => {
      await start("nested")
      const members = await waitFor("the nested shells and sleeps", () => {
        const pids = daemonPids(sb.stateDir, "life/nested")
        return pids.length >= 4 ? pids : undefined
      })
      expect(cli("stop", "nested").status).toBe(0)
      for (const p of members) expect(isAlive(p), `pid ${p} survived the stop`).toBe(false)
    },
    T,
  )
})

/** The supervisor's own log, where it says which stop timeout it applied. */
const supervisorLog = () => readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")

describe("stop timeout and SIGKILL", () => {
  it(
    "a daemon ignoring SIGTERM is SIGKILLed after stop_signal.timeout (1s)",
    async () => {
      const pid = await start("stubborn")
      const r = await sb.cliAsync(["stop", "stubborn"], proj)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain(
        "life/stubborn stopped (killed with SIGKILL: it did not exit on its stop signal within daemons.stubborn.stop_signal.timeout, or settings.supervisor.stop_timeout when unset)",
      )
      expect(r.ms).toBeGreaterThanOrEqual(1_000)
      expect(isAlive(pid)).toBe(false)
      const e = await entry("stubborn")
      expect(e.status).toMatchObject({ type: "stopped", signal: "SIGKILL" })
      const human = cli("status", "stubborn")
      expect(human.stdout).toMatch(/^Last exit: killed by SIGKILL$/m)
      // the configured 1 s, not the default 5 s: the supervisor's log names the timeout it applied
      expect(supervisorLog()).toContain(
        `process group ${pid} still running 1s after SIGTERM; sending SIGKILL`,
      )
    },
    T,
  )

  it(
    "a child ignoring SIGTERM keeps the stop waiting, then the group is SIGKILLed",
    async () => {
      await start("stubbornchild")
      const members = await waitFor("the shell and its child", () => {
        const pids = daemonPids(sb.stateDir, "life/stubbornchild")
        return pids.length === 2 ? pids : undefined
      })
      const r = await sb.cliAsync(["stop", "stubbornchild"], proj)
      expect(r.status, r.stderr).toBe(0)
      expect(r.ms).toBeGreaterThanOrEqual(1_000)
      for (const p of members) expect(isAlive(p), `pid ${p} survived the stop`).toBe(false)
    },
    T,
  )

  it(
    "without a per-daemon timeout, settings.supervisor.stop_timeout applies (1s here, not the 5s default)",
    async () => {
      const pid = await start("slowsettings")
      const r = await sb.cliAsync(["stop", "slowsettings"], proj)
      expect(r.status, r.stderr).toBe(0)
      expect(r.ms).toBeGreaterThanOrEqual(1_000)
      expect(isAlive(pid)).toBe(false)
      expect((await entry("slowsettings")).status.signal).toBe("SIGKILL")
      expect(supervisorLog()).toContain(
        `process group ${pid} still running 1s after SIGTERM; sending SIGKILL`,
      )
    },
    T,
  )
})

describe("stop_signal", () => {
  it(
    'stop_signal = "INT" sends SIGINT (its trap runs), not SIGTERM',
    async () => {
      const pid = await start("polite")
      const r = cli("stop", "polite")
      expect(r.status, r.stderr).toBe(0)
      expect(isAlive(pid)).toBe(false)
      expect(readFileSync(join(proj, "int.marker"), "utf8").trim()).toBe("INT")
      expect(existsSync(join(proj, "term.marker"))).toBe(false)
      expect((await entry("polite")).status).toMatchObject({ type: "stopped", exit_code: 0 })
    },
    T,
  )

  it(
    "the object form with another signal (USR1) is honoured too",
    async () => {
      const pid = await start("usr1")
      const r = await sb.cliAsync(["stop", "usr1"], proj)
      expect(r.status, r.stderr).toBe(0)
      expect(isAlive(pid)).toBe(false)
      expect(readFileSync(join(proj, "usr1.marker"), "utf8").trim()).toBe("USR1")
      // it exited on USR1 itself: no SIGKILL after a timeout
      expect((await entry("usr1")).status.signal ?? null).not.toBe("SIGKILL")
      expect(supervisorLog()).not.toContain(`process group ${pid} still running`)
    },
    T,
  )
})

describe("a daemon that ends on its own", () => {
  it(
    "killed from outside: errored with the signal",
    async () => {
      const pid = await start("victim")
      process.kill(pid, "SIGKILL")
      const e = await waitFor("the daemon to be errored", async () => {
        const x = await entry("victim")
        return x.status.type === "errored" ? x : undefined
      })
      expect(e.status.signal).toBe("SIGKILL")
      expect(e.pid).toBeNull()
      const w = cli("wait", "victim")
      expect(w.status).toBe(128 + 9)
    },
    T,
  )

  it(
    "retry = 1: one more attempt (SUPERVISOR_RETRY_COUNT=1), then errored with the exit code",
    async () => {
      expect(cli("start", "crasher").status).toBe(0)
      const e = await waitFor(
        "the retry to run and fail",
        async () => {
          const x = await entry("crasher")
          return x.status.type === "errored" && x.retry_count === 1 ? x : undefined
        },
        { timeout: 10_000 },
      )
      expect(e.status.exit_code).toBe(2)
      const logs = await waitFor("both attempts in the log", () => {
        const out = cli("logs", "crasher", "--no-timestamp").stdout
        return out.includes("no retry left") ? out : undefined
      })
      // the supervisor's lines say what happened between them (docs/logs.md)
      expect(logs.split("\n").filter(Boolean)).toEqual([
        "attempt 0",
        "[supervisor] exited with code 2",
        "[supervisor] restarting: retry 1 of 1",
        "attempt 1",
        "[supervisor] exited with code 2",
        "[supervisor] not restarting: no retry left (after 1 retry)",
      ])
    },
    T,
  )

  it(
    "a daemon gets its dir, env and the SUPERVISOR_* variables",
    async () => {
      await start("envd")
      const line = await waitFor("the daemon's line", () =>
        cli("logs", "envd", "--no-timestamp").stdout.trim(),
      )
      expect(line).toBe(`id=life/envd ns=life retry=0 greeting=hello cwd=${join(proj, "sub")}`)
      expect(cli("stop", "envd").status).toBe(0)
    },
    T,
  )
})
