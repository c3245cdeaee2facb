/**
 * Container mode (docs/container.md) as a container runs it, without a container runtime: the
 * supervisor is PID 1 of a PID namespace of its own (`unshare --pid --fork --mount-proc`, as root).
 * Orphans of daemons are reaped, SIGTERM stops every daemon in order (dependents first) and the
 * supervisor exits 0, `--exit-on-failure` makes a daemon failing for good stop everything with
 * exit status 1, and every daemon's output is on its stdout with its name.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { statOf } from "../process/helpers.js"
import {
  cmdlineOf,
  type DaemonEntry,
  type DaemonSandbox,
  makeDaemonSandbox,
  type Running,
  spawnCli,
  waitFor,
} from "./harness.js"

const T = 60_000
const UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc"]

// Not skipped where it cannot run: CI runs as root with util-linux, and so must this test.
beforeAll(() => {
  const probe = spawnSync(UNSHARE[0]!, [...UNSHARE.slice(1), "true"], { encoding: "utf8" })
  if (probe.error !== undefined || probe.status !== 0)
    throw new Error(
      `container mode's e2e tests need \`${UNSHARE.join(" ")}\` (util-linux, run as root): ${
        probe.error?.message ?? probe.stderr.trim()
      }`,
    )
})

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
})
afterEach(() => sb.destroy(), T)

const allPids = () =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)

/** `root` and every process below it (host pids). */
const tree = (root: number): Array<number> => {
  const stats = allPids().flatMap((pid) => {
    const s = statOf(pid)
    return s === undefined ? [] : [{ pid, ppid: s.ppid }]
  })
  const out = [root]
  for (let i = 0; i < out.length; i++) for (const s of stats) if (s.ppid === out[i]) out.push(s.pid)
  return out
}

/** The host pid of the process whose pid in the innermost namespace is `nsPid`, among `pids`. */
const hostPidOf = (pids: ReadonlyArray<number>, nsPid: number): number | undefined =>
  pids.find((pid) => {
    let status: string
    try {
      status = readFileSync(`/proc/${pid}/status`, "utf8")
    } catch {
      return false
    }
    const ns = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/)
    return ns !== undefined && Number(ns[ns.length - 1]) === nsPid
  })

/** The supervisor inside the namespace: the only child of `unshare`. */
const supervisorIn = (host: Running) =>
  waitFor("the supervisor in its namespace", () =>
    allPids().find((pid) => statOf(pid)?.ppid === host.pid && cmdlineOf(pid).includes("run")),
  )

const zombiesIn = (root: number) => tree(root).filter((pid) => statOf(pid)?.state === "Z")

/** A daemon that says it is up, and on SIGTERM notes its name in ORDER and says it stops. */
const daemon = (name: string, before = "") => `${before}echo ${name} up
trap 'echo ${name} >> ORDER; echo ${name} stopping; exit 0' TERM
sleep 1000 &
wait`

describe("supervisor supervisor run as PID 1 (container mode)", () => {
  it(
    "the spawn helper takes in a double-forked daemon's orphan (reaped: no zombie left) and the pseudo-terminal's holder; SIGTERM stops worker, web, db in that order and exits 0; every line on stdout with its daemon's name",
    async () => {
      const order = join(sb.root, "order")
      const orphanFile = join(sb.root, "orphan.pid")
      // the orphan lives until the test has seen it re-parented, then exits
      const release = join(sb.root, "orphan.release")
      const app = sb.project(
        "app",
        `
[daemons.db]
run = """${daemon("db").replace("ORDER", order)}"""
ready_output = "db up"
boot_start = true

[daemons.web]
run = """${daemon("web", `(sh -c 'while [ ! -e ${release} ]; do sleep 0.1; done' & echo $! > ${orphanFile})\n`).replace("ORDER", order)}"""
ready_output = "web up"
depends = ["db"]
boot_start = true

[daemons.worker]
run = """${daemon("worker").replace("ORDER", order)}"""
ready_output = "worker up"
depends = ["web"]
boot_start = true

[daemons.tty]
run = "echo tty up; exec sleep 1000"
pty = true
ready_output = "tty up"
boot_start = true
`,
      )
      const host = spawnCli(["supervisor", "run", "--boot"], { cwd: app, env: sb.env, wrap: UNSHARE })
      const supervisor = await supervisorIn(host)
      await waitFor(
        "every daemon up",
        () => ["db", "web", "worker", "tty"].every((d) => host.stdout().includes(`${d} | ${d} up`)),
        { timeout: 30_000 },
      )
      expect(host.stderr()).toContain("(pid 1)")
      expect(host.stderr()).toContain("container mode (PID 1)")

      // the spawn helper is the subreaper: the orphan of web's subshell is re-parented to it
      const helper = tree(supervisor).find(
        (pid) => statOf(pid)?.comm === "spawn-helper" && statOf(pid)?.ppid === supervisor,
      )
      expect(helper, "the spawn helper").toBeDefined()
      const orphanNs = Number(
        await waitFor("the orphan's pid", () => readFileSync(orphanFile, "utf8").trim()),
      )
      const orphan = await waitFor("the orphan among the namespace's processes", () =>
        hostPidOf(tree(supervisor), orphanNs),
      )
      await waitFor("the orphan re-parented to the spawn helper", () => statOf(orphan)?.ppid === helper)
      // so is the pseudo-terminal's holder, which forks twice to leave the daemon's session
      const holder = tree(supervisor).find((pid) =>
        cmdlineOf(pid).join(" ").startsWith("supervisor-pty app/tty"),
      )
      expect(holder, "the pseudo-terminal's holder").toBeDefined()
      await waitFor("the holder re-parented to the spawn helper", () => statOf(holder!)?.ppid === helper)
      // the orphan exits: reaped, not left a zombie of PID 1
      writeFileSync(release, "")
      await waitFor("the orphan reaped", () => statOf(orphan) === undefined, { timeout: 15_000 })
      await waitFor("no zombie in the namespace", () => zombiesIn(supervisor).length === 0)

      process.kill(supervisor, "SIGTERM")
      const exit = await host.exited
      expect(exit, host.stderr()).toEqual({ code: 0, signal: null })
      expect(readFileSync(order, "utf8")).toBe("worker\nweb\ndb\n")
      const out = host.stdout()
      for (const name of ["db", "web", "worker"]) {
        expect(out).toContain(`${name} | ${name} up\n`)
        expect(out).toContain(`${name} | ${name} stopping\n`)
      }
      expect(out).toContain("tty | tty up")
      // stdout holds the daemons' lines only: the supervisor's own are on stderr
      for (const line of out.split("\n").filter((l) => l !== ""))
        expect(line).toMatch(/^(db|web|worker|tty) \| /)
    },
    T,
  )

  it(
    "--exit-on-failure: a daemon failing for good (no retry left) stops every daemon in order and exits 1; --log-format json prints JSON lines",
    async () => {
      const order = join(sb.root, "order")
      const app = sb.project(
        "app",
        `
[daemons.steady]
run = """${daemon("steady").replace("ORDER", order)}"""
ready_output = "steady up"
boot_start = true

[daemons.broken]
run = "echo broken starting; sleep 0.5; echo broken gives up; exit 3"
ready_output = "broken starting"
retry = 1
depends = ["steady"]
boot_start = true
`,
      )
      const host = spawnCli(["supervisor", "run", "--boot", "--exit-on-failure", "--log-format", "json"], {
        cwd: app,
        env: sb.env,
        wrap: UNSHARE,
      })
      const exit = await host.exited
      expect(exit, host.stderr()).toEqual({ code: 1, signal: null })
      expect(host.stderr()).toContain(
        "supervisor stopping: app/broken failed for good (app/broken exited with code 3 (after 1 retry)); --exit-on-failure",
      )
      expect(readFileSync(order, "utf8")).toBe("steady\n")
      const lines = host
        .stdout()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { daemon: string; name: string; time: string; message: string })
      const said = lines.map((l) => `${l.name}: ${l.message}`)
      expect(said.filter((l) => l === "broken: broken gives up")).toHaveLength(2) // the run and its retry
      expect(said).toContain("steady: steady up")
      expect(said).toContain("steady: steady stopping")
      expect(lines.find((l) => l.name === "steady")).toMatchObject({ daemon: "app/steady" })
      for (const l of lines) expect(l.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    },
    T,
  )

  it(
    "without --exit-on-failure a daemon failing for good leaves the supervisor running",
    async () => {
      const app = sb.project(
        "app",
        `
[daemons.steady]
run = "echo steady up; exec sleep 1000"
ready_output = "steady up"
boot_start = true

[daemons.broken]
run = "echo broken; exit 3"
boot_start = true
`,
      )
      const host = spawnCli(["supervisor", "run", "--boot"], { cwd: app, env: sb.env, wrap: UNSHARE })
      const supervisor = await supervisorIn(host)
      await waitFor(
        "the failure noted",
        () => host.stdout().includes("broken | [supervisor] exited with code 3"),
        {
          timeout: 30_000,
        },
      )
      await waitFor("steady up", () => host.stdout().includes("steady | steady up"), { timeout: 30_000 })
      const list = sb.cli(["list", "--json"], app)
      expect(list.status, list.stderr).toBe(0)
      const statuses = Object.fromEntries(
        (JSON.parse(list.stdout) as Array<DaemonEntry>).map((d) => [d.id.qualified, d.status.type]),
      )
      expect(statuses).toMatchObject({ "app/steady": "running", "app/broken": "errored" })
      expect(statOf(supervisor)).toBeDefined()
      process.kill(supervisor, "SIGTERM")
      expect(await host.exited).toEqual({ code: 0, signal: null })
    },
    T,
  )
})

describe("supervisor supervisor run, container mode's flags", () => {
  it(
    "--container turns it on when the supervisor is not PID 1 (behind tini or docker run --init)",
    async () => {
      const app = sb.project(
        "app",
        `[daemons.one]\nrun = "echo one up; exec sleep 1000"\nready_output = "one up"\nboot_start = true\n`,
      )
      const host = spawnCli(["supervisor", "run", "--boot", "--container"], { cwd: app, env: sb.env })
      await waitFor("one's line", () => host.stdout().includes("one | one up\n"), { timeout: 30_000 })
      expect(host.stderr()).toContain("container mode (--container)")
      host.child.kill("SIGTERM")
      expect(await host.exited).toEqual({ code: 0, signal: null })
    },
    T,
  )

  it(
    "--exit-on-failure and --log-format without container mode (not PID 1, no --container) are refused, naming the fix",
    async () => {
      const r = await sb.cliAsync(["supervisor", "run", "--exit-on-failure", "--log-format", "json"], sb.root)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(
        "error: --log-format and --exit-on-failure only apply in container mode: add --container (or set settings.supervisor.container = true)",
      )
      const bad = await sb.cliAsync(["supervisor", "run", "--container", "--log-format", "yaml"], sb.root)
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain('--log-format takes text or json, not "yaml"')
    },
    T,
  )
})
