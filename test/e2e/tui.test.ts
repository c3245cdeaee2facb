/**
 * `supervisor tui` in a real pseudo-terminal (tmux): the table, the main keys, and the state
 * they change, read back from the supervisor's API, and the table following the event stream. Its
 * actions are commands of the protocol, counted in /metrics with source `tui`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"
import { type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

const APP = `
[daemons.web]
run = "echo hello from web; exec sleep 300"
ready_delay = 0.2

[daemons.db]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.worker]
run = "exec sleep 300"
ready_delay = 0.2
`

describe("supervisor tui", () => {
  let sb: DaemonSandbox
  let app: string
  let tui: TmuxSession
  beforeAll(() => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    const started = sb.cli(["start", "web", "db"], app)
    expect(started.status, started.stderr).toBe(0)
    tui = tmuxCli(`sv-tui-${process.pid}`, ["tui", "--interval", "0.3"], { cwd: app, env: sb.env })
  }, T)
  afterAll(() => {
    tui?.kill()
    sb?.destroy()
  })

  /** The screen once `test` holds of it (polled, with a deadline). */
  const screen = (what: string, test: (text: string) => boolean, timeout = 15_000) =>
    waitFor(
      what,
      () => {
        const text = tui.capture()
        return test(text) ? text : undefined
      },
      { timeout },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nscreen:\n${tui.capture()}`)
    })
  const line = (text: string, start: string) => text.split("\n").find((l) => l.startsWith(start)) ?? ""
  const status = async (id: string) => (await daemonEntry(sb.stateDir, id))?.status.type

  it(
    "shows every daemon with its status, the first selected, and the help line",
    async () => {
      const text = await screen("the table", (t) => /app\/worker\s+available/.test(t))
      expect(text).toMatch(/ID\s+STATUS\s+PID\s+CPU\s+MEM\s+PORTS\s+UPTIME/)
      expect(line(text, "> ")).toMatch(/^> app\/db\s+running\s+\d+\s+\d+\.\d%\s+\S+\s+-\s+\d+s/)
      expect(text).toMatch(/^ {2}app\/web\s+running/m)
      expect(text).toContain("supervisor · 3 daemons")
      expect(text).toContain(
        "s start  x stop  r restart  e enable  d disable  / filter  l log  ? help  q quit",
      )
    },
    T,
  )

  it(
    "moves the selection with j and follows the selected daemon's log",
    async () => {
      tui.sendKeys("j")
      const text = await screen(
        "app/web's log",
        (t) => t.includes("── log: app/web") && t.includes("hello from web"),
      )
      expect(line(text, "> ")).toMatch(/^> app\/web\s+running/)
    },
    T,
  )

  it(
    "starts (s) and stops (x) the selected daemon, each a command from the dashboard",
    async () => {
      const sent = (tag: string) => commandCount(sb.stateDir, tag, "tui")
      const before = { start: await sent("Start"), stop: await sent("Stop") }
      tui.sendKeys("G")
      await screen("app/worker selected", (t) => line(t, "> ").startsWith("> app/worker"))
      tui.sendKeys("s")
      await screen("the start's result", (t) => t.includes("started app/worker"))
      expect(await status("app/worker")).toBe("running")
      await screen("app/worker running in the table", (t) => /^> app\/worker\s+running/m.test(t))
      tui.sendKeys("x")
      await screen("the stop's result", (t) => t.includes("stopped app/worker"))
      expect(await status("app/worker")).toBe("stopped")
      // sent as commands of the protocol (POST /api/commands), counted with source tui
      expect({
        start: (await sent("Start")) - before.start,
        stop: (await sent("Stop")) - before.stop,
      }).toEqual({
        start: 1,
        stop: 1,
      })
    },
    T,
  )

  it(
    "restarts (r) the selected daemon: a new process",
    async () => {
      const before = (await daemonEntry(sb.stateDir, "app/web"))?.pid
      tui.sendKeys("k")
      await screen("app/web selected", (t) => line(t, "> ").startsWith("> app/web"))
      tui.sendKeys("r")
      await screen("the restart's result", (t) => t.includes("restarted app/web"))
      const after = await daemonEntry(sb.stateDir, "app/web")
      expect(after?.status.type).toBe("running")
      expect(after?.pid).not.toBe(before)
    },
    T,
  )

  it(
    "disables (d) and enables (e) the selected daemon",
    async () => {
      tui.sendKeys("d")
      await screen(
        "the disable's result",
        (t) => t.includes("disabled app/web") && /app\/web\s+\S+ \(disabled\)/.test(t),
      )
      expect((await daemonEntry(sb.stateDir, "app/web"))?.enabled).toBe(false)
      tui.sendKeys("e")
      await screen("the enable's result", (t) => t.includes("enabled app/web") && !t.includes("(disabled)"))
      expect((await daemonEntry(sb.stateDir, "app/web"))?.enabled).toBe(true)
    },
    T,
  )

  it(
    "says so when the supervisor stops answering, and goes on once it is back",
    async () => {
      expect(sb.cli(["supervisor", "stop"], app).status).toBe(0)
      await screen("the unreachable notice", (t) =>
        t.includes("the supervisor is not answering: retrying every 0.3s"),
      )
      expect(sb.cli(["supervisor", "start"], app).status).toBe(0)
      const text = await screen(
        "the table again",
        (t) => !t.includes("not answering") && /app\/web\s+stopped/.test(t),
      )
      expect(text).toContain("supervisor · 3 daemons")
    },
    T,
  )

  it(
    "filters with /: only the matching rows, kept on Enter, cleared on Esc",
    async () => {
      tui.sendKeys("/", "wor")
      let text = await screen("the filtered table", (t) => t.includes('1 match "wor"'))
      expect(text).toContain("filter: wor")
      expect(text).toMatch(/^> app\/worker/m)
      expect(text).not.toMatch(/^ {2}app\/(web|db)/m)
      tui.sendKeys("Enter")
      text = await screen("the help line back", (t) => t.includes("? help  q quit"))
      expect(text).toContain('1 match "wor"')
      tui.sendKeys("Escape")
      await screen("every row back", (t) => t.includes("supervisor · 3 daemons") && !t.includes("match"))
      tui.sendKeys("/", "zzz")
      await screen("no row matching", (t) => t.includes("(no daemon matches the filter)"))
      tui.sendKeys("Escape")
      await screen("every row back again", (t) => /^> app\/\w+/m.test(t) && !t.includes("match"))
    },
    T,
  )

  it(
    "toggles the log pane (l) and shows the full help (?)",
    async () => {
      tui.sendKeys("l")
      await screen("no log pane", (t) => !t.includes("── log:"))
      tui.sendKeys("l")
      await screen("the log pane again", (t) => t.includes("── log:"))
      tui.sendKeys("?")
      const text = await screen(
        "the help",
        (t) => t.includes("Keys") && t.includes("select the previous / next daemon"),
      )
      expect(text).toMatch(/x {2}S\s+stop it/)
      tui.sendKeys("Space")
      await screen("the table after the help", (t) => t.includes("ID") && t.includes("? help  q quit"))
    },
    T,
  )

  it(
    "quits on q with the terminal restored and exit status 0",
    async () => {
      tui.sendKeys("q")
      const text = await screen("the exit", (t) => t.includes("EXIT=0"))
      // the alternate screen is left: the dashboard is gone from the shell's screen
      expect(text).not.toContain("? help  q quit")
    },
    T,
  )

  it(
    "follows the event stream: a daemon started from the CLI shows long before the next refresh",
    async () => {
      const stopped = sb.cli(["stop", "worker"], app)
      expect(stopped.status, stopped.stderr).toBe(0)
      // the usage refresh is a minute away: only an event can bring the change in time
      tui = tmuxCli(`sv-tui-live-${process.pid}`, ["tui", "--interval", "60"], { cwd: app, env: sb.env })
      await screen("worker not running", (t) => /app\/worker\s+(stopped|available)/.test(t))
      const started = sb.cli(["start", "worker"], app)
      expect(started.status, started.stderr).toBe(0)
      await screen("worker running", (t) => /app\/worker\s+running/.test(t))
      tui.sendKeys("q")
      await screen("the exit", (t) => t.includes("EXIT=0"))
    },
    T,
  )

  it(
    "refuses to run without a terminal: a usage error",
    () => {
      const r = sb.cli(["tui"], app)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain("supervisor tui needs a terminal")
    },
    T,
  )
})
