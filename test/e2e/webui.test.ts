/**
 * The web UI in a real browser (the system Chromium through playwright-core) against a real
 * supervisor started with `--web-port`: login by token and by the one-time link, the daemon
 * table following actions, the live log panel, and no token in the page (the views added since:
 * webuiGrowth.test.ts).
 * One supervisor for the file; every wait is on a condition with a deadline.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import { type DaemonSandbox, freePort, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"
import { launchChromium, loggedInPage as logIn, row, WAIT, waitStatus } from "./webPage.js"

const T = 45_000

let sb: DaemonSandbox
let dir: string
let browser: Browser
let webUrl: string
let token: string

interface ListedDaemon {
  readonly id: { readonly qualified: string }
  readonly pid: number | null
  readonly status: { readonly type: string }
  readonly next_run: string | null
}

const expectOk = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

/** The daemon as `supervisor list --json` reports it. */
const listed = (id: string): ListedDaemon | undefined =>
  (JSON.parse(expectOk(["list", "--json"]).stdout) as Array<ListedDaemon>).find((d) => d.id.qualified === id)

/** The number of a `tick N` line of the chatty daemon (NaN for anything else). */
const tickOf = (message: string | null) => Number(/^tick (\d+) /.exec(message ?? "")?.[1])

const loggedInPage = (): Promise<Page> => logIn(browser, webUrl, token)

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.web]
run = "echo web is up; exec sleep 300"
ready_delay = 0.2

[daemons.chatty]
run = 'i=0; while true; do i=$((i+1)); echo "tick $i <i>raw</i>"; sleep 0.2; done'
ready_delay = 0.2

[daemons.levels]
run = """printf '%s\\n' '{"level":"info","msg":"all good"}' '{"level":"error","msg":"it broke"}' 'plain'; exec sleep 300"""
ready_delay = 0.2
logs = { log_format = "json" }

[daemons.nightly]
run = "echo nightly"
cron = "0 0 3 * * *"
`,
  )
  const port = await freePort()
  expectOk(["supervisor", "start", "--web-port", String(port)])
  const status = JSON.parse(expectOk(["supervisor", "status", "--json"]).stdout) as { web_url: string | null }
  expect(status.web_url).toBe(`http://127.0.0.1:${port}`)
  webUrl = `${status.web_url}/`
  token = expectOk(["supervisor", "token"]).stdout.trim()
  expect(token).toMatch(/^\S{16,}$/)
  expectOk(["start", "web", "chatty", "levels"])
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
})

describe("web UI (e2e, Chromium)", () => {
  it(
    "without a session: the login form; a wrong token shows the error; the right one shows both daemons",
    async () => {
      const page = await (await browser.newContext()).newPage()
      await page.goto(webUrl)
      await page.locator("#login").waitFor({ state: "visible", timeout: WAIT })
      expect(await page.locator("#app").isHidden()).toBe(true)
      expect(await page.locator("#login").textContent()).toContain("supervisor supervisor token")

      await page.locator("#token").fill("not-the-token")
      await page.locator("#login-form button[type=submit]").click()
      await page.locator("#login-error", { hasText: "wrong token" }).waitFor({ timeout: WAIT })
      expect(await page.locator("#app").isHidden()).toBe(true)

      await page.locator("#token").fill(token)
      await page.locator("#login-form button[type=submit]").click()
      await waitStatus(page, "app/web", "running")
      await waitStatus(page, "app/chatty", "running")
      expect(await page.locator("#login").isHidden()).toBe(true)
      const pid = listed("app/web")?.pid
      expect(await row(page, "app/web").locator("td").nth(2).textContent()).toBe(String(pid))
      await page.locator("#stats", { hasText: /\d+ processes · \d+ CPUs/ }).waitFor({ timeout: WAIT })
      await page.context().close()
    },
    T,
  )

  it(
    "a cron daemon's row shows its next run in local time, the API's time as its title",
    async () => {
      const page = await loggedInPage()
      const next = listed("app/nightly")?.next_run
      expect(next).toMatch(/^\d{4}-\d{2}-\d{2}T03:00:00\.000Z$/)
      const at = new Date(next as string)
      const pad = (n: number) => String(n).padStart(2, "0")
      const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
      const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
      const today = at.toDateString() === new Date().toDateString()
      const note = row(page, "app/nightly").locator(".next-run")
      await note.filter({ hasText: /^next run / }).waitFor({ timeout: WAIT })
      expect(await note.textContent()).toBe(`next run ${today ? "" : `${date} `}${time}`)
      expect(await note.getAttribute("title")).toBe(next)
      // a daemon without a schedule shows none
      expect(await row(page, "app/web").locator(".next-run").textContent()).toBe("")
      await page.context().close()
    },
    T,
  )

  it(
    "a daemon with a slug links its proxy address under its ID; the others show none",
    async () => {
      mkdirSync(join(sb.home, ".config", "supervisor"), { recursive: true })
      writeFileSync(
        join(sb.home, ".config", "supervisor", "config.toml"),
        "[settings.proxy]\nenable = true\n",
      )
      expectOk(["proxy", "add", "shop", "--daemon", "web"])
      const page = await loggedInPage()
      const link = row(page, "app/web").locator("a.proxy-link")
      await link.filter({ hasText: "https://shop.localhost:7443" }).waitFor({ timeout: WAIT })
      expect(await link.getAttribute("href")).toBe("https://shop.localhost:7443")
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
      expect(await row(page, "app/chatty").locator("a.proxy-link").isHidden()).toBe(true)
      expectOk(["proxy", "remove", "shop"])
      await link.waitFor({ state: "hidden", timeout: WAIT })
      await page.context().close()
    },
    T,
  )

  it(
    "the link of `supervisor web` logs a fresh browser in; Log out brings the login form back",
    async () => {
      const url = expectOk(["web"]).stdout.trim()
      expect(url).toMatch(new RegExp(`^${webUrl}login\\?code=\\S+$`))
      const page = await (await browser.newContext()).newPage()
      await page.goto(url)
      expect(page.url()).toBe(webUrl)
      await waitStatus(page, "app/web", "running")
      expect(await page.locator("#login").isHidden()).toBe(true)

      await page.locator("#logout").click()
      await page.locator("#login").waitFor({ state: "visible", timeout: WAIT })
      await page.reload()
      await page.locator("#login").waitFor({ state: "visible", timeout: WAIT })
      expect(await page.locator("#app").isHidden()).toBe(true)
      await page.context().close()
    },
    T,
  )

  it(
    "Stop, Disable, Enable and Start follow in the table and in `supervisor list`; each is a command from the web",
    async () => {
      const page = await loggedInPage()
      const web = row(page, "app/web")
      const button = (action: string) => web.locator(`button[data-action="${action}"]`)
      const TAGS = ["Stop", "Disable", "Enable", "Start"]
      const counts = () => Promise.all(TAGS.map((tag) => commandCount(sb.stateDir, tag, "web")))
      const before = await counts()

      await button("stop").click()
      await waitStatus(page, "app/web", "stopped")
      expect(listed("app/web")?.status.type).toBe("stopped")
      expect(await web.locator("td").nth(2).textContent()).toBe("–")

      // disabled and stopped: only Enable (Start would fail; the inline error of a failing action
      // is tested in webuiGrowth.test.ts)
      await button("disable").click()
      await web.locator('button[data-action="enable"]:not([disabled])').waitFor({ timeout: WAIT })
      expect(await web.locator("button[data-action]:visible").count()).toBe(1)
      await button("enable").click()
      await web.locator('button[data-action="disable"]:not([disabled])').waitFor({ timeout: WAIT })

      await button("start").click()
      await waitStatus(page, "app/web", "running")
      const now = listed("app/web")
      expect(now?.status.type).toBe("running")
      await web.locator("td", { hasText: new RegExp(`^${now?.pid}$`) }).waitFor({ timeout: WAIT })
      // each button sent one command of the protocol (POST /api/commands), counted with source web
      expect((await counts()).map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1])
      await page.context().close()
    },
    T,
  )

  it(
    "clicking a daemon ID streams its log lines live, as text; a clear empties the panel; another ID or Close ends the stream",
    async () => {
      const page = await loggedInPage()
      await row(page, "app/chatty").locator(".idlink").click()
      await page.locator("#log-title", { hasText: "app/chatty" }).waitFor({ timeout: WAIT })
      const messages = page.locator("#log-lines .log-line .msg")
      await messages.first().waitFor({ timeout: WAIT })
      const n = tickOf(await messages.last().textContent())
      expect(n).toBeGreaterThan(0)
      // lines written after the panel opened arrive without a reload
      await page
        .locator("#log-lines .msg", { hasText: `tick ${n + 5} <i>raw</i>` })
        .waitFor({ timeout: WAIT })
      expect(await messages.count()).toBeLessThanOrEqual(100 + 50)
      // the line's markup is text, not elements
      expect(await page.locator("#log-lines i").count()).toBe(0)

      // `logs --clear` sends {_clear: true}: the panel empties, then only newer lines come
      const before = tickOf(await messages.last().textContent())
      expectOk(["logs", "--clear", "app/chatty"])
      await waitFor(
        `a first line after tick ${before}`,
        async () => tickOf(await messages.first().textContent()) > before,
        {
          timeout: WAIT,
        },
      )

      // another daemon: its own stream replaces the first (aborted)
      await row(page, "app/web").locator(".idlink").click()
      await page.locator("#log-title", { hasText: "app/web" }).waitFor({ timeout: WAIT })
      await page.locator("#log-lines .msg", { hasText: "web is up" }).first().waitFor({ timeout: WAIT })
      expect(await page.locator("#log-lines .msg", { hasText: "tick" }).count()).toBe(0)

      await page.locator("#log-close").click()
      expect(await page.locator("#logs").isHidden()).toBe(true)
      expect(await messages.count()).toBe(0)
      await page.context().close()
    },
    T,
  )

  it(
    "a structured daemon's lines show their level, each in its colour; a line without one shows none",
    async () => {
      const page = await loggedInPage()
      await row(page, "app/levels").locator(".idlink").click()
      await page.locator("#log-title", { hasText: "app/levels" }).waitFor({ timeout: WAIT })
      const error = page.locator("#log-lines .log-line .lvl-error")
      await error.waitFor({ timeout: WAIT })
      expect(await error.textContent()).toBe("error")
      const info = page.locator("#log-lines .log-line .lvl-info")
      expect(await info.textContent()).toBe("info")
      // runs in the page: its getComputedStyle (the tests' types have no DOM)
      const colour = (l: typeof info) =>
        l.evaluate(
          (node) =>
            (
              globalThis as unknown as { getComputedStyle: (n: unknown) => { color: string } }
            ).getComputedStyle(node).color,
        )
      expect(await colour(error)).not.toBe(await colour(info))
      const plain = page.locator("#log-lines .log-line", { hasText: "plain" })
      expect(await plain.locator(".lvl").count()).toBe(0)
      await page.context().close()
    },
    T,
  )

  it(
    "the page never contains the token",
    async () => {
      const res = await fetch(webUrl)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/html")
      const html = await res.text()
      expect(html).toContain("<title>supervisor</title>")
      expect(html).not.toContain(token)
      const page = await loggedInPage()
      expect(await page.content()).not.toContain(token)
      await page.context().close()
    },
    T,
  )
})
