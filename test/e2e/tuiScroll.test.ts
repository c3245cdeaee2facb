/**
 * `supervisor tui` with more daemons than the terminal has lines: only a window of rows is
 * drawn, and it follows the selection (End, PgUp, Home); Ctrl-C quits with the terminal restored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"
import { type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000
const N = 60
const name = (i: number) => `d${String(i).padStart(2, "0")}`

describe("supervisor tui with many daemons", () => {
  let sb: DaemonSandbox
  let tui: TmuxSession
  let app: string
  beforeAll(() => {
    sb = makeDaemonSandbox()
    const toml = Array.from({ length: N }, (_, i) => `[daemons.${name(i)}]\nrun = "exec sleep 300"\n`).join(
      "\n",
    )
    app = sb.project("app", toml)
    tui = tmuxCli(`sv-tui-scroll-${process.pid}`, ["tui"], { cwd: app, env: sb.env, width: 100, height: 30 })
  }, T)
  afterAll(() => {
    tui?.kill()
    sb?.destroy()
  })

  const screen = (what: string, test: (text: string) => boolean) =>
    waitFor(
      what,
      () => {
        const text = tui.capture()
        return test(text) ? text : undefined
      },
      { timeout: 15_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nscreen:\n${tui.capture()}`)
    })
  const rowsShown = (text: string) => text.split("\n").filter((l) => /^[> ] app\/d\d\d\s/.test(l))

  it(
    "draws only the rows that fit, and scrolls them with the selection",
    async () => {
      let text = await screen(
        "the table",
        (t) => t.includes(`supervisor · ${N} daemons`) && t.includes("app/d00"),
      )
      // 30 lines: title, header, 12 table rows, log title, 12 log lines, status, help, one spare
      expect(rowsShown(text)).toHaveLength(12)
      expect(text).toContain("rows 1-12")
      // the whole frame on screen, none of it scrolled away: title first, help line on line 29
      const lines = text.split("\n")
      expect(lines[0]).toMatch(/^supervisor · /)
      expect(lines[28]).toContain("q quit")
      tui.sendKeys("End")
      text = await screen("the last daemon selected", (t) => /^> app\/d59\s/m.test(t))
      expect(text).toContain("rows 49-60")
      expect(rowsShown(text)).toHaveLength(12)
      expect(text).not.toContain("app/d00")
      tui.sendKeys("PPage")
      text = await screen("a page up", (t) => /^> app\/d47\s/m.test(t))
      expect(text).toContain("rows 48-59")
      tui.sendKeys("Home")
      await screen("the first daemon again", (t) => /^> app\/d00\s/m.test(t) && t.includes("rows 1-12"))
      // a change outside the window is not drawn then, but is there once the window reaches it
      expect(sb.cli(["start", "d59"], app).status).toBe(0)
      tui.sendKeys("End")
      await screen("the started daemon, scrolled to", (t) => /^> app\/d59\s+running\s/m.test(t))
    },
    T,
  )

  it(
    "quits on Ctrl-C with exit status 0 and the shell's screen back",
    async () => {
      tui.sendKeys("C-c")
      const text = await screen("the exit", (t) => t.includes("EXIT=0"))
      expect(text).not.toContain("app/d00")
    },
    T,
  )

  it(
    "follows the CLI's auto-start setting: none, and no supervisor, is an error (exit 1)",
    async () => {
      expect(sb.cli(["supervisor", "stop"], app).status).toBe(0)
      expect(sb.cli(["settings", "set", "supervisor.auto_start", "false", "--global"], app).status).toBe(0)
      const second = tmuxCli(`sv-tui-noauto-${process.pid}`, ["tui"], { cwd: app, env: sb.env })
      try {
        const text = await waitFor("the refusal", () => {
          const t = second.capture()
          return t.includes("EXIT=") ? t : undefined
        })
        expect(text).toContain("the supervisor is not running")
        expect(text).toContain("auto-start is disabled")
        expect(text).toContain("EXIT=1")
      } finally {
        second.kill()
      }
    },
    T,
  )
})
