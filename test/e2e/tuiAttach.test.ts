/**
 * The dashboard's `a` (docs/tui.md): the selected `pty = true` daemon's terminal full-screen, typed
 * into, then Ctrl-] back to the table as it was left, the daemon still running; a daemon without a
 * terminal is refused on the status line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"
import { screenWhere, type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

const APP = `
[daemons.repl]
run = "exec python3 -q -i"
pty = true

[daemons.plain]
run = "exec sleep 300"
`

describe("supervisor tui: a attaches", () => {
  let sb: DaemonSandbox
  let app: string
  let tui: TmuxSession
  beforeAll(() => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    const started = sb.cli(["start", "repl", "plain"], app)
    expect(started.status, started.stderr).toBe(0)
    tui = tmuxCli(`sv-tui-attach-${process.pid}`, ["tui", "--interval", "0.3"], { cwd: app, env: sb.env })
  }, T)
  afterAll(() => {
    tui?.kill()
    sb?.destroy()
  })

  const screen = (what: string, test: (text: string) => boolean) => screenWhere(tui, what, test)
  const selected = (text: string) => text.split("\n").find((l) => l.startsWith("> ")) ?? ""

  it(
    "attaches to the selected daemon full-screen and comes back to the table on Ctrl-]",
    async () => {
      const pid = await waitFor(
        "app/repl running",
        async () => (await daemonEntry(sb.stateDir, "app/repl"))?.pid,
      )
      await screen("the table", (t) => /app\/repl\s+running/.test(t))
      tui.sendKeys("j")
      await screen("app/repl selected", (t) => selected(t).startsWith("> app/repl"))
      tui.sendKeys("a")
      // the REPL's prompt alone: the table is gone
      await screen("the REPL's screen", (t) => /^>>>/m.test(t) && !t.includes("STATUS"))
      tui.sendKeys("-l", "6*7")
      tui.sendKeys("Enter")
      await screen("6*7 answered", (t) => /^>>> 6\*7\n42$/m.test(t))
      tui.sendKeys("C-]")
      const back = await screen(
        "the table again",
        (t) => t.includes("detached from app/repl (still running)") && /^> app\/repl\s+running/m.test(t),
      )
      expect(back).not.toContain(">>> 6*7")
      expect((await daemonEntry(sb.stateDir, "app/repl"))?.pid).toBe(pid)
      // the dashboard's keys work again
      tui.sendKeys("k")
      await screen("app/plain selected", (t) => selected(t).startsWith("> app/plain"))
    },
    T,
  )

  it(
    "says on the status line why a daemon without a terminal cannot be attached; ? lists the key",
    async () => {
      tui.sendKeys("a")
      await screen("the refusal", (t) => /app\/plain.*pty = true/.test(t) && /STATUS/.test(t))
      // the full help lists the key
      tui.sendKeys("?")
      await screen("the help", (t) => /^ {2}a\s+attach to it \(pty = true\)/m.test(t))
      tui.sendKeys("Space")
      await screen("the table after the help", (t) => t.includes("STATUS"))
      tui.sendKeys("q")
      await screen("the dashboard's exit", (t) => t.includes("EXIT=0"))
    },
    T,
  )
})
