/**
 * `supervisor send` through the built CLI (docs/attach.md): text and tmux-named keys reach a
 * `pty = true` REPL as typed at a keyboard (Ctrl-C interrupts it) and a `stdin = "pipe"` daemon
 * byte for byte; both still take input from a supervisor started again (it adopts them); a daemon
 * that reads no input, or does not run, is refused with the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cliAsync(args, proj)
const messages = async (id: string) => (await storedLogs(sb.stateDir, id)).map((e) => e.message)
const logged = (id: string, what: string | RegExp) =>
  waitFor(`${what} in the log of ${id}`, async () => {
    const lines = await messages(id)
    return lines.some((l) => (typeof what === "string" ? l.includes(what) : what.test(l))) ? lines : undefined
  })

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "app",
    `
[daemons.repl]
run = "exec python3 -i -q"
pty = true
ready_output = ">>>"

[daemons.reader]
run = "exec python3 -u -c 'import sys\\nfor l in sys.stdin: print(repr(l))'"
stdin = "pipe"
ready_delay = 0.2

[daemons.deaf]
run = "exec sleep 300"
ready_delay = 0.1

[daemons.idle]
run = "exec cat"
pty = true
`,
  )
  expect((await cli("start", "repl", "reader", "deaf")).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

describe("supervisor send", () => {
  it(
    "types text and Enter into a pty REPL; C-c interrupts its running loop",
    async () => {
      const r = await cli("send", "repl", "6*7", "--enter", "--json")
      expect(r.status, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual({ id: "app/repl", bytes: 4 })
      await logged("app/repl", /^42$/)
      expect((await cli("send", "repl", "while True: pass", "--keys", "Enter Enter")).status).toBe(0)
      expect((await cli("send", "repl", "--keys", "C-c")).status).toBe(0)
      await logged("app/repl", "KeyboardInterrupt")
      expect((await cli("send", "repl", "'still' + 'here'", "--enter")).status).toBe(0)
      await logged("app/repl", "'stillhere'")
    },
    T,
  )

  it(
    "writes a stdin pipe byte for byte: keys as an xterm sends them, Enter as a newline",
    async () => {
      const r = await cli("send", "reader", "a", "b", "--keys", "Tab", "--keys", "Up", "--enter")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("sent 8 bytes to app/reader")
      await logged("app/reader", String.raw`'a b\t\x1b[A\n'`)
    },
    T,
  )

  it(
    "a daemon that reads no input, or does not run, is refused with the fix; a bad key name is a usage error",
    async () => {
      const deaf = await cli("send", "deaf", "x")
      expect(deaf.status).toBe(1)
      expect(deaf.stderr).toContain("set pty = true")
      expect(deaf.stderr).toContain('stdin = "pipe"')
      const key = await cli("send", "reader", "--keys", "Hyper-x")
      expect(key.status).toBe(2)
      expect(key.stderr).toContain('unknown key "Hyper-x"')
      expect((await cli("stop", "deaf")).status).toBe(0)
      const stopped = await cli("send", "deaf", "x")
      expect(stopped.status).toBe(1)
      // configured, never started: not running (not unknown), with the command that starts it
      const idle = await cli("send", "idle", "x")
      expect(idle.status).toBe(1)
      expect(idle.stderr).toContain(
        "daemon app/idle is not running (it has not been started); start it with: supervisor start app/idle",
      )
      const unknown = await cli("send", "nosuch", "x")
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).not.toContain("not running")
    },
    T,
  )

  it(
    "a supervisor started again adopts both daemons, and they still take input",
    async () => {
      const restart = await cli("supervisor", "start", "--force")
      expect(restart.status, restart.stderr).toBe(0)
      expect((await cli("send", "repl", "1+2", "--enter")).status).toBe(0)
      await logged("app/repl", /^3$/)
      expect((await cli("send", "reader", "again", "--enter")).status).toBe(0)
      await logged("app/reader", String.raw`'again\n'`)
    },
    T,
  )
})
