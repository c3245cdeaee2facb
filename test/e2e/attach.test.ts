/**
 * `supervisor attach` in a real terminal (tmux) against a `pty = true` daemon running a Python REPL:
 * typing and reading, the window size following the terminal's, Ctrl-C reaching the REPL and not
 * the CLI, the detach key leaving the daemon running, the earlier screen on attaching again, the
 * daemon's exit status as attach's own; and the refusals, one line each, exit 1.
 */
import { spawnSync } from "node:child_process"
import { readlinkSync } from "node:fs"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"
import { screenWhere, type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

const APP = `
[daemons.repl]
run = "exec python3 -q -i"
pty = true

[daemons.quitter]
run = "exec python3 -q -i"
pty = true

[daemons.killed]
run = "exec python3 -q -i"
pty = true

[daemons.plain]
run = "exec sleep 300"
`

let sb: DaemonSandbox
let app: string
const sessions: Array<TmuxSession> = []

beforeAll(() => {
  sb = makeDaemonSandbox()
  app = sb.project("app", APP)
  const started = sb.cli(["start", "repl", "quitter", "killed", "plain"], app)
  expect(started.status, started.stderr).toBe(0)
}, T)
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill()
})
afterAll(() => sb?.destroy())

/** Prints the terminal's line-editing modes once attach has exited: `MODES: icanon echo` when restored. */
const MODES = `printf 'MODES: %s\\n' "$(stty -a | tr -s ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' ')"`
const restored = /^MODES: icanon echo$/m

let n = 0
/** `supervisor attach ARGS` in a new tmux window of `width` x `height`. */
const attach = (args: ReadonlyArray<string>, width = 100, height = 30) => {
  const s = tmuxCli(`sv-attach-${process.pid}-${n++}`, ["attach", ...args], {
    cwd: app,
    env: sb.env,
    width,
    height,
    after: MODES,
  })
  sessions.push(s)
  return s
}

/** `rows cols` of the terminal a process reads (`stty size` of its stdin's device). */
const sizeOf = (pid: number) =>
  spawnSync("stty", ["-F", readlinkSync(`/proc/${pid}/fd/0`), "size"], { encoding: "utf8" }).stdout.trim()

const pidOf = async (id: string) => (await daemonEntry(sb.stateDir, id))?.pid

describe("supervisor attach", () => {
  it(
    "types into the REPL, follows the window size, sends Ctrl-C to it, detaches with Ctrl-] and finds the earlier screen again",
    async () => {
      const pid = await waitFor("app/repl running", () => pidOf("app/repl"))
      const s = attach(["repl"], 100, 30)
      await screenWhere(s, "the attached line", (t) => t.includes("attached to app/repl; Ctrl-] detaches"))
      s.sendKeys("-l", "1+1")
      s.sendKeys("Enter")
      await screenWhere(s, "1+1 answered", (t) => /^>>> 1\+1\n2$/m.test(t))

      await waitFor("the daemon's terminal at 30x100", () => sizeOf(pid) === "30 100")
      s.sendKeys("-l", "import os; os.get_terminal_size()")
      s.sendKeys("Enter")
      await screenWhere(s, "100 columns", (t) => t.includes("os.terminal_size(columns=100, lines=30)"))
      s.resize(120, 40)
      // the daemon's terminal has the new size before the question is typed (the resize and the
      // keys travel apart: SIGWINCH to attach, keys through tmux)
      await waitFor("the daemon's terminal at 40x120", () => sizeOf(pid) === "40 120")
      s.sendKeys("-l", "os.get_terminal_size()")
      s.sendKeys("Enter")
      await screenWhere(s, "120 columns", (t) => t.includes("os.terminal_size(columns=120, lines=40)"))

      // a loop that says it runs, then Ctrl-C: the REPL's KeyboardInterrupt, and attach goes on
      s.sendKeys("-l", `exec("print('loop' + 'ing')\\nwhile True: pass")`)
      s.sendKeys("Enter")
      await screenWhere(s, "the loop running", (t) => /^looping$/m.test(t))
      s.sendKeys("C-c")
      await screenWhere(s, "KeyboardInterrupt", (t) => t.includes("KeyboardInterrupt"))
      s.sendKeys("-l", "6*7")
      s.sendKeys("Enter")
      await screenWhere(s, "6*7 answered after Ctrl-C", (t) => /^>>> 6\*7\n42$/m.test(t))

      s.sendKeys("C-]")
      const end = await screenWhere(s, "detached", (t) => t.includes("EXIT="))
      expect(end).toContain("detached from app/repl (still running)")
      expect(end).toContain("EXIT=0")
      // the terminal is back in its line mode (raw mode off)
      expect(await screenWhere(s, "the modes", (t) => t.includes("MODES:"))).toMatch(restored)
      const listed = sb.cli(["list", "--json"], app)
      const entry = (
        JSON.parse(listed.stdout) as Array<{
          id: { qualified: string }
          status: { type: string }
          pid: number
        }>
      ).find((e) => e.id.qualified === "app/repl")
      expect(entry).toMatchObject({ status: { type: "running" }, pid })

      // attaching again shows the screen as it was left
      const again = attach(["repl"])
      const earlier = await screenWhere(again, "the earlier screen", (t) => /^42$/m.test(t))
      expect(earlier).toContain("KeyboardInterrupt")
      again.sendKeys("-l", "2**10")
      again.sendKeys("Enter")
      await screenWhere(again, "2**10 answered", (t) => /^1024$/m.test(t))
      again.sendKeys("C-]")
      await screenWhere(again, "detached again", (t) => t.includes("EXIT=0"))
      expect(await pidOf("app/repl")).toBe(pid)
    },
    T,
  )

  it(
    "takes another detach key with --detach-key",
    async () => {
      const s = attach(["repl", "--detach-key", "C-q"])
      await screenWhere(s, "the attached line", (t) => t.includes("attached to app/repl; Ctrl-Q detaches"))
      s.sendKeys("C-q")
      const end = await screenWhere(s, "detached", (t) => t.includes("EXIT="))
      expect(end).toContain("detached from app/repl (still running)")
      expect(end).toContain("EXIT=0")
    },
    T,
  )

  it(
    "ends with the daemon's exit code when it exits while attached, 128 + the signal's number when killed",
    async () => {
      const s = attach(["quitter"])
      await screenWhere(s, "the attached line", (t) => t.includes("attached to app/quitter"))
      s.sendKeys("-l", "import sys; sys.exit(7)")
      s.sendKeys("Enter")
      const end = await screenWhere(s, "the exit", (t) => t.includes("EXIT="))
      expect(end).toContain("app/quitter exited with code 7")
      expect(end).toContain("EXIT=7")
      expect(await screenWhere(s, "the modes", (t) => t.includes("MODES:"))).toMatch(restored)

      const k = attach(["killed"])
      await screenWhere(k, "the attached line", (t) => t.includes("attached to app/killed"))
      k.sendKeys("-l", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
      k.sendKeys("Enter")
      const killed = await screenWhere(k, "the exit", (t) => t.includes("EXIT="))
      expect(killed).toContain("app/killed was killed by SIGTERM")
      expect(killed).toContain("EXIT=143")
    },
    T,
  )

  it(
    "refuses a daemon without a terminal, one not running and an unknown one in one line, exit 1",
    async () => {
      const plain = await sb.cliAsync(["attach", "plain"], app)
      expect(plain.status).toBe(1)
      expect(plain.stderr.trim().split("\n")).toHaveLength(1)
      expect(plain.stderr).toMatch(/^error: .*app\/plain.*pty = true/)

      const stopped = await sb.cliAsync(["attach", "quitter"], app)
      expect(stopped.status).toBe(1)
      expect(stopped.stderr.trim().split("\n")).toHaveLength(1)
      expect(stopped.stderr).toMatch(/^error: .*app\/quitter.*not running/)

      // configured, never started: listed as available, and not running
      const never = sb.project("never", '[daemons.repl]\nrun = "exec python3 -q -i"\npty = true\n')
      const available = await sb.cliAsync(["attach", "repl"], never)
      expect({ status: available.status, stderr: available.stderr }).toEqual({
        status: 1,
        stderr:
          "error: daemon never/repl is not running (available); start it with: supervisor start never/repl\n",
      })

      const unknown = await sb.cliAsync(["attach", "nosuch"], app)
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toMatch(/^error: daemon nosuch not found/)

      const badKey = await sb.cliAsync(["attach", "repl", "--detach-key", "x"], app)
      expect(badKey.status).toBe(2)
      expect(badKey.stderr).toMatch(/^error: --detach-key "x" is not a control key/)
    },
    T,
  )
})
