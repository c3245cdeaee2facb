/**
 * The shell hook through the built CLI with real interactive shells (bash, zsh and fish, each
 * fed its commands on stdin): `cd` into a project starts its `auto = ["start"]` daemons (the
 * first `cd` also starts the supervisor), leaving stops the `auto = ["stop"]` ones after
 * `general.autostop_delay`, a second shell keeps them, a SIGKILLed shell counts as gone, coming
 * back within the delay cancels, and the next `cd` in any shell reports the autostop. The starts
 * and stops are commands of the protocol, counted in /metrics.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import {
  apiGet,
  BIN,
  type DaemonSandbox,
  daemonEntry,
  isAlive,
  makeDaemonSandbox,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 60_000
// settings.general.autostop_delay here, in seconds
const DELAY_S = 5
let sb: DaemonSandbox

type ShellName = "bash" | "zsh" | "fish"

interface Shell {
  readonly pid: number
  readonly send: (line: string) => void
  readonly output: () => string
  readonly child: ChildProcessWithoutNullStreams
}

const shells: Array<Shell> = []

/** An interactive shell in `cwd` with the hook loaded, its commands fed on stdin. */
const openShell = (name: ShellName, cwd: string): Shell => {
  const argv: Record<ShellName, ReadonlyArray<string>> = {
    bash: ["--norc", "--noprofile", "-i"],
    zsh: ["-f", "-i"],
    fish: ["--no-config", "-i"],
  }
  // fish reads a pipe to its end before it runs anything: it gets a terminal (script(1))
  const child =
    name === "fish"
      ? spawn("script", ["-qfc", `fish ${argv.fish.join(" ")}`, "/dev/null"], {
          cwd,
          env: { ...sb.env, TERM: "dumb" },
          stdio: "pipe",
        })
      : spawn(name, argv[name], { cwd, env: { ...sb.env, PS1: "$ " }, stdio: "pipe" })
  let out = ""
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  const send = (line: string) => child.stdin.write(`${line}\n`)
  const activate = `'${process.execPath}' '${BIN}' activate ${name}`
  send(name === "fish" ? `${activate} | source` : `eval "$(${activate})"`)
  send(`echo SHELLPID=${name === "fish" ? "$fish_pid" : "$$"}`)
  const shell = { pid: child.pid!, send, output: () => out, child }
  shells.push(shell)
  return shell
}

/** The shell's own pid (under script(1), not the child's), as it printed it. */
const pidOf = (shell: Shell) =>
  waitFor("the shell's pid", () => Number(/SHELLPID=(\d+)/.exec(shell.output())?.[1] ?? 0))

interface Presence {
  readonly kind: string
  readonly pid: number
  readonly directory: string
}

/** Waits until the supervisor has the shell in `dir`. */
const shellIn = async (shell: Shell, dir: string) => {
  const pid = await pidOf(shell)
  return waitFor(
    `the shell ${pid} in ${dir}`,
    async () =>
      ((await apiGet<Array<Presence>>(sb.stateDir, "/api/sessions")) ?? []).some(
        (p) => p.pid === pid && p.directory === dir,
      ),
    { timeout: 20_000 },
  )
}

const statusOf = async (id: string) => (await daemonEntry(sb.stateDir, id))?.status.type

const until = (id: string, status: string, timeout = 20_000) =>
  waitFor(`${id} ${status}`, async () => (await statusOf(id)) === status, { timeout })

const project = (name: string, auto: string) =>
  sb.project(
    name,
    ["[daemons.api]", 'run = "exec sleep 300"', "ready_delay = 0", `auto = ${auto}`, ""].join("\n"),
  )

beforeAll(() => {
  sb = makeDaemonSandbox()
  sb.dir("elsewhere")
  // a supervisor setting: the user config file
  // a delay well beyond a hook's answer on a busy machine (a Node start each: ~1 s there), so
  // that a return within it is one in every run
  sb.write({ "home/.config/supervisor/config.toml": `[settings.general]\nautostop_delay = "${DELAY_S}s"\n` })
}, T)
afterAll(() => {
  for (const s of shells) s.child.kill("SIGKILL")
  sb.destroy()
})

describe("shell hook (e2e)", () => {
  it(
    "bash: cd into a project starts its auto-start daemon (the supervisor too); leaving stops it after the delay, logged and reported once",
    async () => {
      const dir = project("one", '["start", "stop"]')
      const shell = openShell("bash", sb.root)
      const other = openShell("bash", join(sb.root, "elsewhere"))
      shell.send(`cd ${dir}`)
      await until("one/api", "running")
      // the start and the stop are commands sent to the supervisor's one handler, from the shell
      expect(await commandCount(sb.stateDir, "Start", "shell")).toBeGreaterThanOrEqual(1)
      await shellIn(other, join(sb.root, "elsewhere"))
      shell.send(`cd ${sb.root}/elsewhere`)
      await until("one/api", "stopped")
      expect(await commandCount(sb.stateDir, "Stop", "shell")).toBeGreaterThanOrEqual(1)
      const lines = (await storedLogs(sb.stateDir, "one/api")).map((e) => e.message)
      expect(
        lines.some((l) => l.startsWith("[supervisor] autostopped: no shell or project session in")),
      ).toBe(true)
      const supervisorLog = readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
      expect(supervisorLog).toContain("autostopping one/api")
      // the next cd in any shell reports it, once: the next answered while its prompt waits (an
      // answer 1.5 s late on a loaded machine leaves it for the cd after, docs/shell.md)
      const noticed = () => other.output().includes("supervisor: autostopped one/api")
      for (let attempt = 0; attempt < 3 && !noticed(); attempt++) {
        other.send(attempt % 2 === 0 ? "cd .." : `cd ${sb.root}/elsewhere`)
        await waitFor("the notice", noticed).catch(() => undefined)
      }
      expect(noticed()).toBe(true)
      other.send(`cd ${sb.root}/elsewhere`)
      other.send("echo done-$((40 + 2))")
      await waitFor("the last command", () => other.output().includes("done-42"))
      expect(other.output().split("autostopped one/api").length - 1).toBe(1)
      expect(shell.output()).not.toContain("autostopped one/api")
    },
    T,
  )

  it(
    "bash: a second shell still inside keeps the daemon; SIGKILL of that shell counts as leaving",
    async () => {
      const dir = project("two", '["start", "stop"]')
      const a = openShell("bash", dir)
      const b = openShell("bash", join(dir))
      await until("two/api", "running")
      await shellIn(a, dir)
      await shellIn(b, dir)
      a.send(`cd ${sb.root}/elsewhere`)
      await shellIn(a, join(sb.root, "elsewhere"))
      // a stop would come DELAY_S after a left (checked at the end of the delay): b is still inside
      await new Promise((r) => setTimeout(r, DELAY_S * 1000 + 1_500))
      expect(await statusOf("two/api")).toBe("running")
      b.child.kill("SIGKILL")
      await waitFor("the shell gone", () => !isAlive(b.pid))
      await until("two/api", "stopped")
    },
    T,
  )

  it(
    "bash: coming back within the delay cancels the stop",
    async () => {
      const dir = project("three", '["start", "stop"]')
      const shell = openShell("bash", dir)
      await until("three/api", "running")
      shell.send(`cd ${sb.root}/elsewhere`)
      await shellIn(shell, join(sb.root, "elsewhere"))
      shell.send(`cd ${dir}`)
      await shellIn(shell, dir)
      await new Promise((r) => setTimeout(r, DELAY_S * 1000 + 2_500))
      expect(await statusOf("three/api")).toBe("running")
    },
    T,
  )

  it(
    "bash: an auto-stop-only daemon is not started by entering; one started by hand stops when the last shell leaves",
    async () => {
      const dir = project("four", '["stop"]')
      const shell = openShell("bash", dir)
      await shellIn(shell, dir)
      expect(await statusOf("four/api")).toBe("available")
      expect(sb.cli(["start", "four/api"], dir).status).toBe(0)
      shell.send(`cd ${sb.root}`)
      await until("four/api", "stopped")
    },
    T,
  )

  for (const name of ["zsh", "fish"] as const)
    it(
      `${name}: entering starts the auto-start daemon, leaving stops it after the delay`,
      async () => {
        const dir = project(`${name}proj`, '["start", "stop"]')
        const shell = openShell(name, join(sb.root, "elsewhere"))
        await shellIn(shell, join(sb.root, "elsewhere"))
        shell.send(`cd ${dir}`)
        await until(`${name}proj/api`, "running")
        shell.send(`cd ${sb.root}/elsewhere`)
        await until(`${name}proj/api`, "stopped")
      },
      T,
    )

  it("activate names the three shells for any other (exit 2)", () => {
    const r = sb.cli(["activate", "tcsh"], sb.root)
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/bash, zsh, fish/)
  })
})

describe("project sessions (e2e)", () => {
  it(
    "project enter starts auto-start daemons, list shows the session, leave stops them after the delay",
    async () => {
      const dir = project("five", '["start", "stop"]')
      const ide = spawn("sleep", ["300"], { stdio: "ignore" })
      try {
        const entered = sb.cli(["project", "enter", "--pid", String(ide.pid), "--directory", dir], sb.root)
        expect(entered.status, entered.stderr).toBe(0)
        expect(entered.stdout).toContain(`entered ${dir}`)
        await until("five/api", "running")
        const listed = sb.cli(["project", "list", "--json"], sb.root)
        expect(listed.status, listed.stderr).toBe(0)
        const sessions = JSON.parse(listed.stdout) as Array<Presence>
        expect(sessions).toContainEqual(
          expect.objectContaining({ kind: "session", pid: ide.pid, directory: dir }),
        )
        const text = sb.cli(["project", "list"], sb.root)
        // piped: pitchfork's rows without a header, `PID DIRECTORY STATUS` first (earlier tests'
        // shells may be listed too)
        const rows = text.stdout.split("\n").map((l) => l.split(/\s{2,}/))
        expect(rows[0]?.[0]).not.toBe("PID")
        expect(rows.find((r) => r[0] === String(ide.pid))?.slice(0, 4)).toEqual([
          String(ide.pid),
          dir,
          "alive",
          "session",
        ])
        const left = sb.cli(["project", "leave", "--pid", String(ide.pid)], sb.root)
        expect(left.status, left.stderr).toBe(0)
        expect(left.stdout).toContain(`left ${dir}`)
        await until("five/api", "stopped")
        expect(sb.cli(["project", "leave", "--pid", String(ide.pid)], sb.root).stdout).toContain(
          "no project session",
        )
      } finally {
        ide.kill("SIGKILL")
      }
    },
    T,
  )

  it(
    "a session whose process exits is revoked; a pid with no process is refused",
    async () => {
      const dir = project("six", '["start", "stop"]')
      const ide = spawn("sleep", ["300"], { stdio: "ignore" })
      const entered = sb.cli(["project", "enter", "--pid", String(ide.pid)], dir)
      expect(entered.status, entered.stderr).toBe(0)
      await until("six/api", "running")
      ide.kill("SIGKILL")
      await until("six/api", "stopped")
      const listed = JSON.parse(sb.cli(["project", "list", "--json"], sb.root).stdout) as Array<Presence>
      expect(listed.some((s) => s.pid === ide.pid)).toBe(false)
      const refused = sb.cli(["project", "enter", "--pid", "999999999"], dir)
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain("no running process has pid 999999999")
    },
    T,
  )
})

describe("cd without a supervisor (e2e)", () => {
  it(
    "returns at once, prints nothing, and a detached cd starts the supervisor and reports the directory",
    async () => {
      const fresh = makeDaemonSandbox()
      const idle = spawn("sleep", ["300"], { stdio: "ignore" })
      try {
        const dir = fresh.project(
          "seven",
          '[daemons.api]\nrun = "exec sleep 300"\nready_delay = 0\nauto = ["start"]\n',
        )
        const r = fresh.cli(["cd", "--shell-pid", String(idle.pid)], dir)
        expect(r.status).toBe(0)
        expect(r.stdout).toBe("")
        expect(r.stderr).toBe("")
        await waitFor(
          "the shell recorded by the supervisor that cd started",
          async () =>
            ((await apiGet<Array<Presence>>(fresh.stateDir, "/api/sessions")) ?? []).some(
              (p) => p.pid === idle.pid && p.directory === dir,
            ),
          { timeout: 20_000 },
        )
        await waitFor(
          "seven/api running",
          async () => (await daemonEntry(fresh.stateDir, "seven/api"))?.status.type === "running",
          {
            timeout: 20_000,
          },
        )
      } finally {
        idle.kill("SIGKILL")
        fresh.destroy()
      }
    },
    T,
  )

  it("bad arguments are the CLI's usage error; a pid of no process is ignored quietly", () => {
    // a running supervisor: no detached cd outlives the test
    expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
    const r = sb.cli(["cd", "--shell-pid", "nope"], sb.root)
    expect(r.status).toBe(2)
    const quiet = sb.cli(["cd", "--shell-pid", "999999999"], sb.root)
    expect(quiet.status).toBe(0)
    expect(quiet.stdout).toBe("")
    // the autostops of the tests above not reported yet are all it may print
    for (const line of quiet.stderr.split("\n").filter((l) => l !== ""))
      expect(line).toMatch(/^supervisor: autostopped \w+\/api$/)
  })
})
