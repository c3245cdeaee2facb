/**
 * Autostop notices through the built CLI: once a daemon is autostopped, the next CLI command run
 * anywhere (here `list`, and the quick `list --json`) prints `supervisor: autostopped ID` on
 * stderr, once; the command after it prints nothing of it, and `--json` stdout stays clean. The
 * installed command's `list --json` is answered through dist/quick (src/api/quickAnswer.ts).
 */
import { spawn, spawnSync } from "node:child_process"
import { dirname, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox

const project = (name: string) =>
  sb.project(
    name,
    ["[daemons.api]", 'run = "exec sleep 300"', "ready_delay = 0", 'auto = ["stop"]', ""].join("\n"),
  )

const until = (id: string, status: string) =>
  waitFor(`${id} ${status}`, async () => (await daemonEntry(sb.stateDir, id))?.status.type === status, {
    timeout: 20_000,
  })

/** Starts the project's daemon, then a session enters and leaves: the daemon is autostopped. */
const autostop = async (name: string) => {
  const dir = project(name)
  const started = sb.cli(["start", `${name}/api`], dir)
  expect(started.status, started.stderr).toBe(0)
  await until(`${name}/api`, "running")
  const ide = spawn("sleep", ["300"], { stdio: "ignore" })
  try {
    const enter = sb.cli(["project", "enter", "--pid", String(ide.pid), "--directory", dir], sb.root)
    expect(enter.status, enter.stderr).toBe(0)
    const leave = sb.cli(["project", "leave", "--pid", String(ide.pid)], sb.root)
    expect(leave.status, leave.stderr).toBe(0)
    // the delay (1s) runs past the leave's answer: the notice is still pending here
    expect(leave.stderr).not.toContain("autostopped")
    await until(`${name}/api`, "stopped")
  } finally {
    ide.kill("SIGKILL")
  }
}

const count = (text: string, notice: string) => text.split(notice).length - 1

beforeAll(() => {
  sb = makeDaemonSandbox()
  sb.write({ "home/.config/supervisor/config.toml": '[settings.general]\nautostop_delay = "1s"\n' })
}, T)
afterAll(() => sb.destroy())

describe("autostop notices (e2e)", () => {
  it(
    "the next `list` in another process prints the notice once on stderr; the second `list` does not",
    async () => {
      await autostop("np")
      const first = sb.cli(["list"], sb.root)
      expect(first.status, first.stderr).toBe(0)
      expect(count(first.stderr, "supervisor: autostopped np/api\n")).toBe(1)
      expect(first.stdout).not.toContain("autostopped")
      const second = sb.cli(["list"], sb.root)
      expect(second.status, second.stderr).toBe(0)
      expect(second.stderr).not.toContain("autostopped")
    },
    T,
  )

  it(
    "`list --json` prints it on stderr only: stdout is the JSON listing",
    async () => {
      await autostop("nq")
      const first = sb.cli(["list", "--json"], sb.root)
      expect(first.status, first.stderr).toBe(0)
      expect(first.stderr).toBe("supervisor: autostopped nq/api\n")
      expect(() => JSON.parse(first.stdout)).not.toThrow()
      const second = sb.cli(["list", "--json"], sb.root)
      expect(second.stderr).toBe("")
    },
    T,
  )

  it(
    "the installed command's `list --json` (dist/quick): the notice on stderr once, none under SUPERVISOR_LOG=warn",
    async () => {
      const entry = resolve(dirname(BIN), "supervisor")
      const run = (env: Record<string, string> = {}) =>
        spawnSync(entry, ["list", "--json"], { cwd: sb.root, env: { ...sb.env, ...env }, encoding: "utf8" })
      await autostop("nr")
      const first = run()
      expect(first.status, first.stderr).toBe(0)
      expect(first.stderr).toBe("supervisor: autostopped nr/api\n")
      expect(() => JSON.parse(first.stdout)).not.toThrow()
      expect(run().stderr).toBe("")
      await autostop("ns")
      const quiet = run({ SUPERVISOR_LOG: "warn" })
      expect(quiet.status).toBe(0)
      expect(quiet.stderr).toBe("")
    },
    T,
  )
})
