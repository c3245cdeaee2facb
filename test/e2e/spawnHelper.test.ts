/**
 * The spawn helper through the built CLI: daemons are the children of the supervisor's helper
 * (the built C one, or Perl's with `SUPERVISOR_SPAWN_HELPER=perl`); a helper that dies leaves its daemons running and under control, and the next start gets
 * a new one; `SUPERVISOR_SPAWN_HELPER=0` makes the supervisor fork them itself. Real processes.
 */
import { readFileSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, isAlive, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 30_000

const CONFIG = `
[daemons.one]
run = "exec sleep 300"
ready_delay = 0

[daemons.two]
run = "echo two; sleep 300"
ready_delay = 0
`

/** [ppid, comm] of a process, from /proc. */
const parentOf = (pid: number): { readonly ppid: number; readonly comm: string } => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const close = stat.lastIndexOf(")")
  return { comm: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(stat.slice(close + 2).split(" ")[1]) }
}

const supervisorPid = (sb: DaemonSandbox, cwd: string): number =>
  JSON.parse(sb.cli(["supervisor", "status", "--json"], cwd).stdout).pid

const pidOf = async (sb: DaemonSandbox, id: string): Promise<number> => {
  const entry = await daemonEntry(sb.stateDir, id)
  if (entry?.pid == null) throw new Error(`${id} has no pid`)
  return entry.pid
}

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

describe("the spawn helper", () => {
  it.each([
    { choice: "1", comm: "spawn-helper" }, // the default: the built one; also when the suite runs without it
    { choice: "perl", comm: "perl" },
  ])(
    "SUPERVISOR_SPAWN_HELPER=$choice: $comm forks the daemons; when it dies they keep running, can be stopped, and the next start gets a new one",
    async ({ choice, comm }) => {
      sb = makeDaemonSandbox()
      sb.env.SUPERVISOR_SPAWN_HELPER = choice
      const cwd = sb.project("app", CONFIG)
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      const supervisor = supervisorPid(sb, cwd)
      const one = await pidOf(sb, "app/one")
      const helper = parentOf(one).ppid
      expect(parentOf(helper)).toEqual({ comm, ppid: supervisor })
      expect(parentOf(await pidOf(sb, "app/two")).ppid).toBe(helper)

      process.kill(helper, "SIGKILL")
      await waitFor("the helper to be gone", () => !isAlive(helper))
      expect(isAlive(one)).toBe(true)
      // a daemon that ends now is noticed, though nobody can tell how it ended: a crash (errored),
      // as for an adopted daemon (docs/states.md); with no retries it stays errored
      process.kill(one, "SIGTERM")
      await waitFor(
        "one's end to be noticed",
        async () => (await daemonEntry(sb!.stateDir, "app/one"))?.status.type === "errored",
      )
      expect((await daemonEntry(sb.stateDir, "app/one"))?.status.message).toMatch(/exit status is unknown/)
      // the other is stopped as usual
      const stop = sb.cli(["stop", "app/two"], cwd)
      expect(stop.status).toBe(0)
      expect(stop.stdout).toContain("app/two stopped")

      expect(sb.cli(["start", "app/one"], cwd).status).toBe(0)
      const again = parentOf(await pidOf(sb, "app/one")).ppid
      expect(again).not.toBe(helper)
      expect(parentOf(again)).toEqual({ comm, ppid: supervisor })
    },
    T,
  )

  it(
    "SUPERVISOR_SPAWN_HELPER=0: the supervisor forks the daemons itself",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const env = { ...sb.env, SUPERVISOR_SPAWN_HELPER: "0" }
      expect(sb.cli(["supervisor", "start"], cwd, env).status).toBe(0)
      expect(sb.cli(["start", "--all", "--quiet"], cwd, env).status).toBe(0)
      const supervisor = supervisorPid(sb, cwd)
      expect(parentOf(await pidOf(sb, "app/one")).ppid).toBe(supervisor)
      expect(parentOf(await pidOf(sb, "app/two")).ppid).toBe(supervisor)
      const stop = sb.cli(["stop", "--all"], cwd, env)
      expect(stop.status).toBe(0)
    },
    T,
  )
})
