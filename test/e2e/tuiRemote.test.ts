/**
 * `supervisor tui` against a remote supervisor (docs/remote.md): a supervisor whose API listener
 * serves HTTPS on 127.0.0.2 in one sandbox HOME, and the dashboard in a real pseudo-terminal
 * (tmux) in another HOME, given `--url`, the token and the CA file: the remote daemons in the
 * table, the selected one's log following it; a wrong token is one line and exit 1.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, makeSandbox, type Sandbox, waitFor } from "./harness.js"
import { type TmuxSession, tmuxCli } from "./tmux.js"

const T = 60_000

let srv: DaemonSandbox
let proj: string
let client: Sandbox
let url: string
let token: string
let ca: string
const sessions: Array<TmuxSession> = []

beforeAll(() => {
  srv = makeDaemonSandbox()
  mkdirSync(srv.env.SUPERVISOR_CONFIG_DIR!, { recursive: true })
  writeFileSync(
    join(srv.env.SUPERVISOR_CONFIG_DIR!, "config.toml"),
    '[settings.api]\nauto_start = true\ntls = true\nbind_address = "127.0.0.2"\nbind_port = 0\n',
  )
  // prints each message dropped into msg.txt, then removes it
  proj = srv.project(
    "app",
    '[daemons.web]\nrun = "echo web is up; while true; do if [ -f msg.txt ]; then cat msg.txt; rm msg.txt; fi; sleep 0.05; done"\nready_delay = 0\n\n[daemons.db]\nrun = "exec sleep 300"\nready_delay = 0\n',
  )
  const started = srv.cli(["start", "web"], proj)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(srv.cli(["supervisor", "status", "--json"], proj).stdout) as { api_url: string }
  url = status.api_url
  expect(url).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/)
  token = srv.cli(["supervisor", "token"], proj).stdout.trim()
  client = makeSandbox()
  ca = join(client.root, "ca.pem")
  copyFileSync(join(srv.stateDir, "proxy", "ca.pem"), ca)
}, T)

afterAll(() => {
  for (const s of sessions) s.kill()
  srv?.destroy()
  client?.cleanup()
})

/** The dashboard of the remote supervisor in tmux, from the client's HOME (nothing local). */
const remoteTui = (name: string, withToken: string, width = 160) => {
  const s = tmuxCli(
    `sv-tui-remote-${name}-${process.pid}`,
    ["--url", url, "--ca", ca, "tui", "--interval", "0.3"],
    {
      cwd: client.root,
      env: { ...client.env, SUPERVISOR_API_TOKEN: withToken },
      width,
    },
  )
  sessions.push(s)
  return s
}

/** The screen once `test` holds of it (polled, with a deadline). */
const screen = (tui: TmuxSession, what: string, test: (text: string) => boolean, timeout = 20_000) =>
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

describe("supervisor tui with --url against a supervisor over HTTPS", () => {
  it(
    "shows the remote daemons and follows the selected one's log",
    async () => {
      const tui = remoteTui("ok", token)
      const text = await screen(tui, "the remote daemons", (t) => /app\/web\s+running/.test(t))
      expect(text).toMatch(/app\/db\s+available/)
      expect(text).toContain("supervisor · 2 daemons")
      // select web by the filter
      tui.sendKeys("/", "web", "Enter")
      await screen(tui, "app/web's log", (t) => t.includes("── log: app/web") && t.includes("web is up"))
      const message = `remote-tui-line-${process.pid}`
      writeFileSync(join(proj, "msg.txt"), `${message}\n`)
      await screen(tui, "the new line in the log panel", (t) => t.includes(message))
      // the dependency view: the daemon's file is on the supervisor's machine, which it says
      tui.sendKeys("t")
      await screen(tui, "the dependency view", (t) =>
        t.includes(
          "is on the supervisor's machine (--url): `supervisor graph app/web` there draws this view",
        ),
      )
      tui.sendKeys("t")
      await screen(tui, "the table again", (t) => t.includes("── log: app/web"))
      // leave the filter, then quit: the dashboard ends as it does locally
      tui.sendKeys("Escape")
      await screen(tui, "the filter closed", (t) => !t.includes("filter:"))
      tui.sendKeys("q")
      await screen(tui, "the dashboard to quit", (t) => t.includes("EXIT=0"))
    },
    T,
  )

  it(
    "a wrong token is one line naming the URL and the fix, exit 1",
    async () => {
      // wide enough for the line not to wrap
      const tui = remoteTui("bad", "0".repeat(64), 400)
      const text = await screen(tui, "the exit", (t) => /EXIT=\d+/.test(t))
      const lines = text.split("\n").filter((l) => l.trim() !== "")
      expect(lines).toEqual([
        `error: the supervisor at ${url} refused the token (401): check SUPERVISOR_API_TOKEN (or --token-file); \`supervisor supervisor token\` on its machine prints it`,
        "EXIT=1",
      ])
    },
    T,
  )
})
