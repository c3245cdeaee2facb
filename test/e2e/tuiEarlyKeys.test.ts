/**
 * `supervisor tui` keeps the keys typed before its first frame: they are applied once it is drawn.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"
import { type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

const APP = `
[daemons.web]
run = "exec sleep 300"

[daemons.worker]
run = "exec sleep 300"
`

describe("supervisor tui: keys typed before the first frame", () => {
  let sb: DaemonSandbox
  let app: string
  let tui: TmuxSession | undefined
  beforeAll(() => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    // the supervisor runs already: the dashboard's launch is the CLI's and the dashboard's own
    const listed = sb.cli(["list"], app)
    expect(listed.status, listed.stderr).toBe(0)
  }, T)
  afterEach(() => tui?.kill())
  afterAll(() => sb?.destroy())

  const screen = (what: string, test: (text: string) => boolean) =>
    waitFor(
      what,
      () => {
        const text = tui!.capture()
        return test(text) ? text : undefined
      },
      { timeout: 20_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nscreen:\n${tui!.capture()}`)
    })

  it(
    "a filter typed at once is applied once the table is drawn",
    async () => {
      tui = tmuxCli(`sv-tui-early-${process.pid}`, ["tui", "--interval", "0.3"], { cwd: app, env: sb.env })
      // sent as soon as the session exists: long before node has loaded the CLI, let alone drawn
      tui.sendKeys("/wor")
      const text = await screen("the filtered table", (t) => t.includes('1 match "wor"'))
      expect(text).toContain("filter: wor")
      expect(text).toMatch(/^> app\/worker/m)
      expect(text).not.toMatch(/app\/web/)
    },
    T,
  )

  it(
    "j typed at once moves the selection once the rows are there",
    async () => {
      tui = tmuxCli(`sv-tui-early3-${process.pid}`, ["tui", "--interval", "0.3"], { cwd: app, env: sb.env })
      tui.sendKeys("j")
      // without the early key the first row stays selected, and this waits in vain
      const text = await screen("app/worker selected", (t) => /^> app\/worker\s+available/m.test(t))
      expect(text).toMatch(/^ {2}app\/web\s+available/m)
    },
    T,
  )

  it(
    "? typed at once opens the help screen",
    async () => {
      tui = tmuxCli(`sv-tui-early2-${process.pid}`, ["tui", "--interval", "0.3"], { cwd: app, env: sb.env })
      tui.sendKeys("?")
      const text = await screen("the help screen", (t) => t.includes("any key: back · q quit"))
      expect(text).toContain("this help (any key closes it)")
    },
    T,
  )
})
