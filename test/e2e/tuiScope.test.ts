/**
 * `supervisor tui --namespace NS` and `--project DIR` in a real pseudo-terminal (tmux): only the
 * scope's daemons are shown and acted on; daemons marked with Space (or Ctrl-A) are acted on
 * together, in one command; `t` draws the selected daemon's dependencies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox } from "./harness.js"
import { screenWhere, type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

const APP = `
[daemons.db]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.web]
run = "exec sleep 300"
ready_delay = 0.2
depends = ["db"]

[daemons.worker]
run = "exec sleep 300"
ready_delay = 0.2
`

const SHOP = `
[daemons.api]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.queue]
run = "exec sleep 300"
ready_delay = 0.2
`

const line = (text: string, start: string) => text.split("\n").find((l) => l.startsWith(start)) ?? ""

describe("supervisor tui --namespace / --project", () => {
  let sb: DaemonSandbox
  let app: string
  let shop: string
  const sessions: Array<TmuxSession> = []
  const open = (name: string, args: ReadonlyArray<string>, cwd: string) => {
    const s = tmuxCli(`sv-tui-${name}-${process.pid}`, ["tui", "--interval", "0.3", ...args], {
      cwd,
      env: sb.env,
    })
    sessions.push(s)
    return s
  }
  const status = async (id: string) => (await daemonEntry(sb.stateDir, id))?.status.type
  beforeAll(async () => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    shop = sb.project("shop", SHOP)
    const a = await sb.cliAsync(["start", "db", "worker"], app)
    expect(a.status, a.stderr).toBe(0)
    const b = await sb.cliAsync(["start", "api", "queue"], shop)
    expect(b.status, b.stderr).toBe(0)
  }, T)
  afterAll(() => {
    for (const s of sessions) s.kill()
    sb?.destroy()
  })

  it(
    "--namespace shows that namespace's daemons only, and its keys act on them only",
    async () => {
      // run from app: the scope, not the directory, says what is shown
      const tui = open("ns", ["--namespace", "shop"], app)
      const text = await screenWhere(tui, "shop's daemons", (t) => /shop\/queue\s+running/.test(t))
      expect(text).toContain("supervisor · namespace shop · 2 daemons")
      expect(text).toMatch(/^> shop\/api\s+running/m)
      expect(text).not.toContain("app/")
      // G goes to the scope's last daemon: x stops it, nothing of app's
      tui.sendKeys("G")
      await screenWhere(tui, "shop/queue selected", (t) => line(t, ">").startsWith("> shop/queue"))
      tui.sendKeys("x")
      await screenWhere(tui, "the stop's result", (t) => t.includes("stopped shop/queue"))
      expect(await status("shop/queue")).toBe("stopped")
      expect(await status("app/worker")).toBe("running")
      // the filter works within the scope: app's daemons never match
      tui.sendKeys("/", "w")
      await screenWhere(tui, "the filter typed", (t) => t.includes("filter: w"))
      tui.sendKeys("Enter")
      const filtered = await screenWhere(tui, "no match in the scope", (t) =>
        t.includes("(no daemon matches the filter)"),
      )
      expect(filtered).not.toContain("app/worker")
      tui.sendKeys("q")
      await screenWhere(tui, "the exit", (t) => t.includes("EXIT=0"))
    },
    T,
  )

  it(
    "--project DIR shows the project's daemons, and --namespace adds to it",
    async () => {
      const tui = open("project", ["--project", shop], app)
      const text = await screenWhere(tui, "shop's daemons", (t) => /shop\/api\s+running/.test(t))
      expect(text).toContain("supervisor · namespace shop · 2 daemons")
      expect(text).not.toContain("app/")
      tui.sendKeys("q")
      const both = open("both", ["--project", ".", "--namespace", "shop"], app)
      const all = await screenWhere(
        both,
        "app's and shop's daemons",
        (t) => /app\/worker\s+running/.test(t) && /shop\/api\s+running/.test(t),
      )
      expect(all).toContain("supervisor · namespaces app, shop · 5 daemons")
      both.sendKeys("q")
    },
    T,
  )

  it(
    "acts on the daemons marked with Space in one command, Ctrl-A marks the filter's matches, c clears",
    async () => {
      const tui = open("marks", ["--project", "."], app)
      await screenWhere(tui, "app's daemons", (t) => /app\/worker\s+running/.test(t))
      const stops = await commandCount(sb.stateDir, "Stop", "tui")
      // app/db (selected first) and app/worker marked; the cursor ends on app/worker
      tui.sendKeys("Space")
      await screenWhere(tui, "one mark", (t) => t.includes("· 1 marked"))
      tui.sendKeys("j", "j")
      await screenWhere(tui, "app/worker selected", (t) => line(t, ">").startsWith("> app/worker"))
      tui.sendKeys("Space")
      const marked = await screenWhere(tui, "two marks", (t) => t.includes("· 2 marked"))
      expect(marked).toMatch(/^ \*app\/db\s+running/m)
      expect(marked).toMatch(/^ {2}app\/web\s+available/m)
      expect(marked).toMatch(/^>\*app\/worker\s+running/m)
      tui.sendKeys("x")
      await screenWhere(tui, "the stop's result", (t) => t.includes("stopped 2 daemons (app/db, app/worker)"))
      expect([await status("app/db"), await status("app/worker")]).toEqual(["stopped", "stopped"])
      expect((await commandCount(sb.stateDir, "Stop", "tui")) - stops).toBe(1)
      // the marks stay until c clears them: then s starts the selected daemon only
      tui.sendKeys("c")
      await screenWhere(tui, "no marks", (t) => !t.includes("marked") && /^> app\/worker/m.test(t))
      // Ctrl-A on a filter marks its matches: `w` matches web and worker, not db
      tui.sendKeys("/", "w")
      await screenWhere(tui, "the filter typed", (t) => t.includes('2 match "w"'))
      tui.sendKeys("Enter")
      await screenWhere(tui, "the filter kept", (t) => !t.includes("filter: w"))
      tui.sendKeys("C-a")
      await screenWhere(tui, "the filter's matches marked", (t) => t.includes("· 2 marked"))
      tui.sendKeys("Escape")
      await screenWhere(tui, "the filter cleared", (t) => !t.includes("match") && /app\/db/.test(t))
      tui.sendKeys("s")
      await screenWhere(tui, "the start's result", (t) =>
        t.includes("started 2 daemons (app/web, app/worker)"),
      )
      expect([await status("app/web"), await status("app/worker")]).toEqual(["running", "running"])
      // web's dependency was started with it; nothing of shop's was touched
      expect(await status("app/db")).toBe("running")
      expect(await status("shop/api")).toBe("running")
      tui.sendKeys("q")
    },
    T,
  )

  it(
    "t draws the selected daemon's dependencies as supervisor graph does; any key comes back",
    async () => {
      const tui = open("graph", ["--project", "."], app)
      await screenWhere(tui, "app's daemons", (t) => /app\/web\s+\S+/.test(t))
      tui.sendKeys("j")
      await screenWhere(tui, "app/web selected", (t) => line(t, ">").startsWith("> app/web"))
      tui.sendKeys("t")
      const text = await screenWhere(
        tui,
        "the graph view",
        (t) => t.includes("Dependencies of app/web") && t.includes("└── app/db [ready]"),
      )
      const graph = await sb.cliAsync(["graph", "web"], app)
      expect(graph.status, graph.stderr).toBe(0)
      // the same tree as `supervisor graph web`, statuses included
      expect(graph.stdout).toMatch(/^app\/web \w+\n└── app\/db \[ready\] \w+$/m)
      for (const l of graph.stdout.trim().split("\n")) expect(text).toContain(l)
      tui.sendKeys("t")
      await screenWhere(tui, "the table again", (t) => /^> app\/web\s+\S+/m.test(t))
      tui.sendKeys("q")
    },
    T,
  )

  it(
    "refuses a bad namespace, a directory that is none or --project with --url (exit 2), a project that does not load (exit 1)",
    async () => {
      const bad = await sb.cliAsync(["tui", "--namespace", "a b"], app)
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain('--namespace "a b" is no namespace: it must not contain spaces')
      const none = await sb.cliAsync(["tui", "--project", "nowhere"], app)
      expect(none.status).toBe(2)
      expect(none.stderr).toContain("--project nowhere: no such directory")
      // a project is files on this machine: against a supervisor at a URL, --namespace it is
      const remote = await sb.cliAsync(["tui", "--project", ".", "--url", "http://127.0.0.1:9"], app)
      expect(remote.status).toBe(2)
      expect(remote.stderr).toContain("--project reads a project's files on this machine")
      // a project whose configuration does not load: its problem, exit 1
      const broken = sb.project("broken", "[daemons.web]\nrun = 3\n")
      const bad2 = await sb.cliAsync(["tui", "--project", broken], app)
      expect(bad2.status).toBe(1)
      expect(bad2.stderr).toMatch(/error: .*broken\/supervisor\.toml.*run/)
    },
    T,
  )
})
