/**
 * The shell hook when no supervisor runs yet: the `cd` that starts the supervisor still records
 * its shell, in the directory it is in now (not one a slower report of an earlier `cd` names),
 * and two hooks racing to start the supervisor both get their shell recorded.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { lockName } from "../../src/host/lockName.js"
import {
  apiGet,
  cmdlineOf,
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  processesOf,
  runCliAsync,
  waitFor,
} from "./harness.js"

const T = 90_000

interface Presence {
  readonly kind: string
  readonly pid: number
  readonly directory: string
}

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c()
})

/** A sandbox with `autostop_delay = "0s"`, a project `app` (auto start and stop) and `elsewhere`. */
const sandbox = () => {
  const sb = makeDaemonSandbox()
  cleanups.push(() => sb.destroy())
  sb.write({
    "home/.config/supervisor/config.toml": '[settings.general]\nautostop_delay = "0s"\ninterval = "1s"\n',
  })
  const dir = sb.project(
    "app",
    ["[daemons.api]", 'run = "exec sleep 300"', "ready_delay = 0", 'auto = ["start", "stop"]', ""].join("\n"),
  )
  return { sb, dir, elsewhere: sb.dir("elsewhere") }
}

const sessions = async (sb: DaemonSandbox) =>
  (await apiGet<Array<Presence>>(sb.stateDir, "/api/sessions")) ?? []

const statusOf = async (sb: DaemonSandbox, id: string) => (await daemonEntry(sb.stateDir, id))?.status.type

/** The detached `cd --background` processes of the sandbox still at work. */
const backgroundCds = (sb: DaemonSandbox) =>
  processesOf(sb.stateDir).filter((pid) => {
    const argv = cmdlineOf(pid)
    return argv.includes("cd") && argv.includes("--background")
  })

/** A process standing for a shell (the hook only needs its pid alive). */
const fakeShell = (): ChildProcess => {
  const p = spawn("sleep", ["300"], { stdio: "ignore" })
  cleanups.push(() => p.kill("SIGKILL"))
  return p
}

/** What the hook runs: `supervisor cd --shell-pid PID` in `cwd` (returns at once). */
const hookCd = (sb: DaemonSandbox, pid: number, cwd: string) =>
  runCliAsync(["cd", "--shell-pid", String(pid)], { cwd, env: sb.env })

describe("the shell hook starting the supervisor (e2e)", () => {
  it(
    "bash shells loaded outside the project cd into it while the supervisor starts: each is recorded inside; cd out stops the daemon",
    async () => {
      const { sb, dir, elsewhere } = sandbox()
      // a supervisor starting (slowly: the lock held, no socket yet), as after boot on a busy machine
      const lock = net.createServer((c) => c.destroy())
      cleanups.push(() => lock.close())
      await new Promise<void>((resolve) => lock.listen({ path: lockName(sb.stateDir) }, resolve))
      const hook = sb.cli(["activate", "bash"], sb.root)
      expect(hook.status, hook.stderr).toBe(0)
      sb.write({ "hook.bash": hook.stdout })
      // each shell's first `cd` (at load, in the sandbox root) and its `cd` into the project both
      // find no supervisor answering: each report is left to a background `cd`, and those race
      const shells = Array.from({ length: 4 }, () => {
        const bash = spawn("bash", ["--norc", "--noprofile", "-i"], {
          cwd: sb.root,
          env: { ...sb.env, PS1: "$ " },
          stdio: "pipe",
        })
        cleanups.push(() => bash.kill("SIGKILL"))
        let out = ""
        bash.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
        bash.stderr.setEncoding("utf8").on("data", (d: string) => (out += d))
        bash.stdin.write(`source ${join(sb.root, "hook.bash")}\ncd ${dir}\necho SHELLPID=$$\n`)
        return { bash, output: () => out }
      })
      const pids = await Promise.all(
        shells.map((s) =>
          waitFor("the shell's pid", () => Number(/SHELLPID=(\d+)/.exec(s.output())?.[1] ?? 0), {
            timeout: 30_000,
          }),
        ),
      )
      await waitFor("two background reports per shell", () => backgroundCds(sb).length === 2 * pids.length, {
        timeout: 30_000,
      })
      // the supervisor comes up: the reports of each shell arrive in any order
      lock.close()
      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      await waitFor("the background reports done", () => backgroundCds(sb).length === 0, { timeout: 30_000 })
      const listed = JSON.parse(sb.cli(["project", "list", "--json"], sb.root).stdout) as Array<Presence>
      for (const pid of pids)
        expect(listed).toContainEqual(expect.objectContaining({ kind: "shell", pid, directory: dir }))
      await waitFor("app/api running", async () => (await statusOf(sb, "app/api")) === "running", {
        timeout: 30_000,
      })
      for (const s of shells) s.bash.stdin.write(`cd ${elsewhere}\n`)
      await waitFor("app/api stopped", async () => (await statusOf(sb, "app/api")) === "stopped", {
        timeout: 30_000,
      })
    },
    T,
  )

  it(
    "two hooks racing to start the supervisor: both shells recorded; the daemon stops only after the last leaves",
    async () => {
      const { sb, dir, elsewhere } = sandbox()
      const a = fakeShell()
      const b = fakeShell()
      const [ra, rb] = await Promise.all([hookCd(sb, a.pid!, dir), hookCd(sb, b.pid!, dir)])
      expect([ra.status, rb.status]).toEqual([0, 0])
      await waitFor(
        "both shells recorded in the project",
        async () => {
          const all = await sessions(sb)
          return [a.pid, b.pid].every((pid) => all.some((p) => p.pid === pid && p.directory === dir))
        },
        { timeout: 30_000 },
      )
      const listed = sb.cli(["project", "list", "--json"], sb.root)
      expect(listed.status, listed.stderr).toBe(0)
      const entries = JSON.parse(listed.stdout) as Array<Presence>
      for (const pid of [a.pid, b.pid])
        expect(entries).toContainEqual(expect.objectContaining({ kind: "shell", pid, directory: dir }))
      await waitFor("app/api running", async () => (await statusOf(sb, "app/api")) === "running", {
        timeout: 30_000,
      })
      // a leaves: b is still inside, so nothing is pending and the daemon runs on
      expect((await hookCd(sb, a.pid!, elsewhere)).status).toBe(0)
      await waitFor("a recorded elsewhere", async () =>
        (await sessions(sb)).some((p) => p.pid === a.pid && p.directory === elsewhere),
      )
      expect(await statusOf(sb, "app/api")).toBe("running")
      // b leaves last: the daemon stops
      expect((await hookCd(sb, b.pid!, elsewhere)).status).toBe(0)
      await waitFor("app/api stopped", async () => (await statusOf(sb, "app/api")) === "stopped", {
        timeout: 30_000,
      })
    },
    T,
  )

  it(
    "a supervisor that takes the hook's connection but does not answer yet: the report is retried until one answers",
    async () => {
      const { sb, dir } = sandbox()
      // a supervisor starting: the lock held, its socket bound but not serving yet
      const lock = net.createServer((c) => c.destroy())
      cleanups.push(() => lock.close())
      await new Promise<void>((resolve) => lock.listen({ path: lockName(sb.stateDir) }, resolve))
      mkdirSync(join(sb.stateDir, "sock"), { recursive: true, mode: 0o700 })
      // reads the requests (and so sees their callers hang up) but never answers
      const silent = net.createServer((c) => c.resume())
      cleanups.push(() => silent.close())
      await new Promise<void>((resolve) => silent.listen(join(sb.stateDir, "sock", "api.sock"), resolve))
      const a = fakeShell()
      const b = fakeShell()
      // the prompt waits 2 seconds at most, then goes on
      const [ra, rb] = await Promise.all([hookCd(sb, a.pid!, dir), hookCd(sb, b.pid!, dir)])
      expect([ra.status, rb.status]).toEqual([0, 0])
      // it comes up for real: the socket closes (once its callers gave up on it) and the lock goes
      await new Promise<void>((resolve) => silent.close(() => resolve()))
      lock.close()
      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      await waitFor(
        "both shells recorded in the project",
        async () => {
          const all = await sessions(sb)
          return [a.pid, b.pid].every((pid) => all.some((p) => p.pid === pid && p.directory === dir))
        },
        { timeout: 30_000 },
      )
    },
    T,
  )
})
