/**
 * The web page follows the event stream (GET /api/events as Server-Sent Events) rather than
 * polling the list: a daemon started from the CLI shows on the page while the page's timers are
 * paused (Playwright's clock), without a request (its entry comes with its events), and an idle
 * page asks for nothing: the stream's usage samples update it.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox } from "./harness.js"
import { launchChromium, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000
/** How often the stream brings a usage sample (HISTORY_INTERVAL of src/automation/history/UsageHistory.ts). */
const USAGE_INTERVAL_MS = 5000

let sb: DaemonSandbox
let dir: string
let browser: Browser
let webUrl: string
let token: string

const ok = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  return r
}

/** A logged-in page following the stream; with `clock`, its timers are Playwright's to control. */
const livePage = async (clock: boolean): Promise<Page> => {
  const page = await (await browser.newContext()).newPage()
  if (clock) await page.clock.install()
  await page.goto(webUrl)
  await page.locator("#token").fill(token)
  await page.locator("#login-form button[type=submit]").click()
  await row(page, "live/web").waitFor({ timeout: WAIT })
  await page.locator("body[data-stream=live]").waitFor({ state: "attached", timeout: WAIT })
  return page
}

/** Pauses the page's clock a moment ahead of its now (again if that moment passed meanwhile). */
const pauseSoon = async (page: Page): Promise<void> => {
  for (;;) {
    const at = (await page.evaluate(() => Date.now())) + 500
    try {
      return await page.clock.pauseAt(at)
    } catch (e) {
      if (!String(e).includes("to the past")) throw e
    }
  }
}

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "live",
    `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.later]
run = "exec sleep 300"
ready_delay = 0.2
`,
  )
  const port = await freePort()
  ok(["supervisor", "start", "--web-port", String(port)])
  webUrl = `${JSON.parse(ok(["supervisor", "status", "--json"]).stdout).web_url}/`
  token = ok(["supervisor", "token"]).stdout.trim()
  ok(["start", "web"])
  browser = await launchChromium()
}, T)

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
})

describe("web page on the event stream (e2e, Chromium)", () => {
  it(
    "a daemon started from the CLI shows on the page while the page's timers are paused",
    async () => {
      const page = await livePage(true)
      await waitStatus(page, "live/web", "running")
      // from here no timer of the page fires: only the event stream can bring the change
      await pauseSoon(page)
      const asked: Array<string> = []
      page.on("request", (r) => {
        const url = new URL(r.url())
        if (url.pathname.includes("/api/"))
          asked.push(`${url.pathname.replace(/.*\/api\//, "")}${url.search}`)
      })
      ok(["start", "later"])
      await waitStatus(page, "live/later", "running")
      // the events about live/later came with its entry: the page asked for nothing
      expect(asked).toEqual([])
      await page.context().close()
    },
    T,
  )

  it(
    "an idle page asks for nothing while the stream is up: the stream's usage samples draw its sparklines",
    async () => {
      const page = await livePage(false)
      const asked: Array<string> = []
      page.on("request", (r) => {
        const path = new URL(r.url()).pathname
        if (path.includes("/api/")) asked.push(path)
      })
      /** How many points the memory sparkline of live/web has (its `data-values`). */
      const points = async () =>
        ((await row(page, "live/web").locator("svg.spark-memory").getAttribute("data-values")) ?? "")
          .split(",")
          .filter((v) => v !== "").length
      // a sample comes over the stream (one every USAGE_INTERVAL_MS); by then the list asked for
      // at the stream's opening has come long ago
      const before = await points()
      await expect
        .poll(points, { timeout: 6 * USAGE_INTERVAL_MS, interval: 200 })
        .toBeGreaterThanOrEqual(before + 1)
      asked.length = 0
      // and another, with no request of the page in between
      const next = await points()
      await expect
        .poll(points, { timeout: 6 * USAGE_INTERVAL_MS, interval: 200 })
        .toBeGreaterThanOrEqual(next + 1)
      expect(asked).toEqual([])
      expect(await page.locator("body").getAttribute("data-stream")).toBe("live")
      await page.context().close()
    },
    T,
  )
})
