/**
 * The web page's terminal pane (docs/web.md#terminal-pane) in Chromium against a real supervisor
 * with a `pty = true` daemon running a Python REPL: the Terminal button, xterm.js loaded only
 * when a pane opens, typing into the REPL and reading its answer, the window size, copy, the
 * state line, and the daemon left running when the pane closes. The client's side of the
 * protocol (docs/attach.md) is also checked against a WebSocket the test plays, for what a real
 * daemon cannot be made to do on cue (a Dropped message, an exit code, a lost connection).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, Page, WebSocketRoute } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import {
  apiGet,
  type DaemonSandbox,
  daemonEntry,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
} from "./harness.js"
import { launchChromium, loggedInPage, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000

let sb: DaemonSandbox
let dir: string
let browser: Browser
let webUrl: string
let token: string

const ok = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

/** Content-Security-Policy violations the pages reported (checked after each test). */
const violations: Array<string> = []

/** A logged-in page whose Content-Security-Policy violations are kept in `violations`. */
const openPage = async (context: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> => {
  const page = await loggedInPage(browser, webUrl, token, context)
  page.on("console", (m) => {
    if (m.type() === "error" && /Content.Security.Policy/i.test(m.text())) violations.push(m.text())
  })
  return page
}

/**
 * The terminal fits its box: xterm's screen is no larger than the room it has, and short of it by
 * less than a cell (and a scroll bar's 14 px across).
 */
const expectFitted = async (page: Page) => {
  const { rows, cols } = await termSize(page)
  // the box has no padding nor border: its bounding box is its room
  const box = await page.locator("#term-screen").boundingBox()
  const screen = await page.locator("#term-screen .xterm-screen").boundingBox()
  if (box === null || screen === null) throw new Error("the terminal pane is not shown")
  expect(screen.width).toBeLessThanOrEqual(box.width)
  expect(screen.height).toBeLessThanOrEqual(box.height)
  expect(box.width - screen.width).toBeLessThan(screen.width / cols + 14)
  expect(box.height - screen.height).toBeLessThan(screen.height / rows)
}

/** The terminal's lines as drawn (xterm's DOM rows), trailing blanks trimmed. */
const screenLines = async (page: Page): Promise<Array<string>> =>
  (await page.locator("#term-screen .xterm-rows > div").allTextContents()).map((l) =>
    l.replace(/\u00a0/g, " ").trimEnd(),
  )

/** Waits until a line of the terminal satisfies `test`. */
const waitLine = (page: Page, test: (line: string) => boolean) =>
  expect.poll(async () => (await screenLines(page)).some(test), { timeout: WAIT, interval: 100 }).toBe(true)

const termState = (page: Page) => page.locator("#term-state")

/** Opens the pane of `id` with its row's Terminal button. */
const openTerminal = async (page: Page, id: string) => {
  await row(page, id).locator('button[data-action="terminal"]').click()
  await page.locator("#term-screen .xterm-rows").waitFor({ timeout: WAIT })
}

/** The terminal's size as the page's xterm has it. */
const termSize = (page: Page) =>
  // `pane` is the page script's own binding (a top-level `let` of its classic script)
  page.evaluate<{ rows: number; cols: number }>("({ rows: pane.term.rows, cols: pane.term.cols })")

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.repl]
run = "exec python3 -q -i"
pty = true
ready_delay = 0.2
`,
  )
  const port = await freePort()
  ok(["supervisor", "start", "--web-port", String(port)])
  webUrl = `${JSON.parse(ok(["supervisor", "status", "--json"]).stdout).web_url}/`
  token = ok(["supervisor", "token"]).stdout.trim()
  ok(["start", "web", "repl"])
  browser = await launchChromium()
}, T)

afterEach(() => {
  expect(violations).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
})

describe("web page: the terminal pane (e2e, Chromium)", () => {
  it(
    "only a running pty = true daemon offers its terminal, and xterm.js loads when a pane first opens",
    async () => {
      const page = await openPage()
      const assets: Array<string> = []
      page.on("request", (r) => {
        const path = new URL(r.url()).pathname
        if (path.startsWith("/assets/")) assets.push(path)
      })
      await waitStatus(page, "app/repl", "running")
      await waitStatus(page, "app/web", "running")
      // the entries say which daemon has a terminal
      expect(await apiGet(sb.stateDir, `/api/daemons/${encodeURIComponent("app/repl")}`)).toMatchObject({
        pty: true,
        stdin: "null",
      })
      expect(await apiGet(sb.stateDir, `/api/daemons/${encodeURIComponent("app/web")}`)).toMatchObject({
        pty: false,
      })
      await expect
        .poll(() => row(page, "app/repl").locator('button[data-action="terminal"]').isVisible(), {
          timeout: WAIT,
        })
        .toBe(true)
      expect(await row(page, "app/web").locator('button[data-action="terminal"]').isVisible()).toBe(false)
      expect(assets).toEqual([])
      await openTerminal(page, "app/repl")
      expect(assets.sort()).toEqual(["/assets/xterm.css", "/assets/xterm.js"])
      await page.context().close()
    },
    T,
  )
})

describe("web page: the terminal pane against the documented protocol (a WebSocket played by the test)", () => {
  /** Routes the page's attach WebSocket to the test; resolves with the route once the page connects. */
  const playServer = async (page: Page) => {
    const texts: Array<string> = []
    const keys: Array<Buffer> = []
    let route: WebSocketRoute | undefined
    await page.routeWebSocket(/\/api\/daemons\/[^/]+\/attach\b/, (ws) => {
      route = ws
      ws.onMessage((m) => {
        if (typeof m === "string") texts.push(m)
        else keys.push(m)
      })
    })
    const connected = async () => {
      await expect.poll(() => route !== undefined, { timeout: WAIT }).toBe(true)
      return route as WebSocketRoute
    }
    return { texts, keys, connected, typed: () => Buffer.concat(keys).toString("utf8") }
  }

  it(
    "sends the size in the query, keystrokes as binary frames and a Resize when the pane grows; shows output, Dropped and the exit code",
    async () => {
      const page = await openPage()
      const server = await playServer(page)
      await openTerminal(page, "app/repl")
      const ws = await server.connected()
      const url = new URL(ws.url())
      expect(url.pathname).toBe(`/api/daemons/${encodeURIComponent("app/repl")}/attach`)
      const size = await termSize(page)
      expect(url.searchParams.get("rows")).toBe(String(size.rows))
      expect(url.searchParams.get("cols")).toBe(String(size.cols))
      await expectFitted(page)
      expect(size.rows).toBeGreaterThan(5)
      expect(size.cols).toBeGreaterThan(20)

      ws.send(JSON.stringify({ _tag: "Attached", id: "app/repl", pid: 4242 }))
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe("attached (pid 4242)")
      ws.send(Buffer.from(">>> \x1b[1mbold\x1b[0m and plain\r\n>>> "))
      await waitLine(page, (l) => l === ">>> bold and plain")

      await page.locator("#term-screen").click()
      await page.keyboard.type("1+1")
      await page.keyboard.press("Enter")
      await page.keyboard.press("Control+D")
      await expect.poll(server.typed, { timeout: WAIT }).toBe("1+1\r\x04")
      // keys the page's own shortcuts would take (j, ?, Escape) go to the daemon too
      await page.keyboard.type("j?")
      await page.keyboard.press("Escape")
      await expect.poll(server.typed, { timeout: WAIT }).toBe("1+1\r\x04j?\x1b")
      expect(await page.locator("#help[open]").count()).toBe(0)

      // the pane grows by about ten rows: a Resize with the new size
      await page.evaluate(
        '(b => { b.style.height = b.offsetHeight + 170 + "px" })(document.getElementById("term-box"))',
      )
      await expect
        .poll(
          () => server.texts.map((t) => JSON.parse(t) as { _tag: string; rows: number }).at(-1)?.rows ?? 0,
          {
            timeout: WAIT,
          },
        )
        .toBeGreaterThan(size.rows + 5)
      const grown = await termSize(page)
      await expectFitted(page)
      expect(server.texts.map((t) => JSON.parse(t)).at(-1)).toEqual({ _tag: "Resize", ...grown })

      ws.send(JSON.stringify({ _tag: "Dropped", bytes: 1234 }))
      await waitLine(page, (l) => l.includes("[1234 bytes not shown"))
      ws.send(JSON.stringify({ _tag: "Exited", code: 3, signal: null }))
      await ws.close({ code: 1000 })
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe("exited with code 3")
      expect(await page.locator("#term").getAttribute("data-state")).toBe("exited")
      expect(await page.locator("#term-again").isVisible()).toBe(true)
      await page.context().close()
    },
    T,
  )

  it(
    "a connection lost while attached says detached, and Attach again opens a new one",
    async () => {
      const page = await openPage()
      const server = await playServer(page)
      await openTerminal(page, "app/repl")
      const first = await server.connected()
      first.send(JSON.stringify({ _tag: "Attached", id: "app/repl", pid: 4242 }))
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe("attached (pid 4242)")
      await first.close({ code: 1001, reason: "the supervisor is stopping" })
      await expect
        .poll(() => termState(page).textContent(), { timeout: WAIT })
        .toBe("detached: the supervisor is stopping")
      await page.locator("#term-again").click()
      await expect.poll(async () => (await server.connected()) !== first, { timeout: WAIT }).toBe(true)
      await page.context().close()
    },
    T,
  )
})

describe("web page: the terminal pane on the supervisor's attach route (e2e, Chromium)", () => {
  /** Types a line into the terminal (it has the focus) and presses Enter. */
  const typeLine = async (page: Page, text: string) => {
    await page.keyboard.type(text)
    await page.keyboard.press("Enter")
  }

  it(
    "types 1+1 into the REPL and shows 2; the window size follows the pane; Ctrl+C copies a selection, else interrupts; Ctrl+V pastes; closing leaves the daemon running and reopening shows the earlier screen",
    async () => {
      const pid = (await daemonEntry(sb.stateDir, "app/repl"))?.pid
      expect(pid).toEqual(expect.any(Number))
      const page = await openPage({ permissions: ["clipboard-read", "clipboard-write"] })
      await openTerminal(page, "app/repl")
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe(`attached (pid ${pid})`)
      await page.locator("#term-screen").click()
      await typeLine(page, "1+1")
      await waitLine(page, (l) => l === "2")

      // the daemon's terminal has the pane's size, and follows it when the pane grows
      await typeLine(page, "import os; os.get_terminal_size()")
      const size = await termSize(page)
      await waitLine(page, (l) => l === `os.terminal_size(columns=${size.cols}, lines=${size.rows})`)
      await page.evaluate(
        '(b => { b.style.height = b.offsetHeight + 170 + "px" })(document.getElementById("term-box"))',
      )
      await expect
        .poll(async () => (await termSize(page)).rows, { timeout: WAIT })
        .toBeGreaterThan(size.rows + 5)
      const grown = await termSize(page)
      await typeLine(page, "os.get_terminal_size()")
      await waitLine(page, (l) => l === `os.terminal_size(columns=${grown.cols}, lines=${grown.rows})`)

      // a double-click selects the answer's word; Ctrl+C copies it rather than interrupting
      await typeLine(page, "'copy' + 'me'")
      await waitLine(page, (l) => l === "'copyme'")
      const answer = page.locator("#term-screen .xterm-rows > div").filter({ hasText: /^'copyme'\s*$/ })
      const at = await answer.boundingBox()
      if (at === null) throw new Error("the answer is not on screen")
      await page.mouse.dblclick(at.x + 20, at.y + at.height / 2)
      await page.keyboard.press("Control+C")
      await expect
        .poll(() => page.evaluate<string>("navigator.clipboard.readText()"), { timeout: WAIT })
        .toBe("copyme")
      // Ctrl+V types the clipboard
      await page.evaluate('navigator.clipboard.writeText("6*7")')
      await page.keyboard.press("Control+V")
      await page.keyboard.press("Enter")
      await waitLine(page, (l) => l === "42")
      // no selection now: Ctrl+C goes to the REPL, and interrupts its loop
      await typeLine(page, "while True: pass")
      await page.keyboard.press("Enter")
      await page.keyboard.press("Control+C")
      await waitLine(page, (l) => l === "KeyboardInterrupt")

      // closing the pane detaches: the daemon runs on, the same process
      await page.locator("#term-close").click()
      expect(await page.locator("#term").isHidden()).toBe(true)
      await expect.poll(async () => (await daemonEntry(sb.stateDir, "app/repl"))?.status.type).toBe("running")
      expect((await daemonEntry(sb.stateDir, "app/repl"))?.pid).toBe(pid)
      // and reopening attaches again, the earlier screen first
      await openTerminal(page, "app/repl")
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe(`attached (pid ${pid})`)
      await waitLine(page, (l) => l === "'copyme'")
      await page.locator("#term-screen").click()
      await typeLine(page, "2+3")
      await waitLine(page, (l) => l === "5")
      await page.context().close()
    },
    T,
  )

  it(
    "a page of another origin cannot attach, even one on the same host, to which the browser sends the session cookie",
    async () => {
      const page = await openPage()
      const supervisor = new URL(webUrl)
      const attachPath = `/api/daemons/${encodeURIComponent("app/repl")}/attach?rows=24&cols=80`
      // another local server's page, same site to the browser (only the port differs), so the
      // browser sends the session cookie with its WebSocket
      const foreign = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html" })
        res.end("<!doctype html><title>another page</title>")
      })
      await new Promise<void>((done) => foreign.listen(0, "127.0.0.1", done))
      try {
        const at = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`
        await page.goto(at)
        const outcome = await page.evaluate<string>(`new Promise((done) => {
          const ws = new WebSocket(${JSON.stringify(`ws://${supervisor.host}${attachPath}`)});
          ws.onopen = () => done("open");
          ws.onclose = (e) => done("closed " + e.code);
        })`)
        // refused before the upgrade (the 403 OriginNotAllowed itself: attachWire.test.ts)
        expect(outcome).toBe("closed 1006")
      } finally {
        foreign.close()
        await page.context().close()
      }
    },
    T,
  )

  it(
    "t opens the selected daemon's terminal; a daemon that exits says its exit code; a stopped one cannot be attached to and the pane says why",
    async () => {
      const page = await openPage()
      // the ID's click selects the row (and opens its logs); t opens its terminal
      await row(page, "app/repl").locator(".idlink").click()
      await page.keyboard.press("t")
      await page.locator("#term-screen .xterm-rows").waitFor({ timeout: WAIT })
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toMatch(/^attached /)
      await page.locator("#term-screen").click()
      await typeLine(page, "import sys; sys.exit(3)")
      await expect.poll(() => termState(page).textContent(), { timeout: WAIT }).toBe("exited with code 3")
      await waitStatus(page, "app/repl", "errored")
      expect(await row(page, "app/repl").locator('button[data-action="terminal"]').isVisible()).toBe(false)
      await page.locator("#term-again").click()
      await expect
        .poll(() => termState(page).textContent(), { timeout: WAIT })
        .toBe("cannot attach: it is not running (errored)")
      await page.context().close()
    },
    T,
  )
})
