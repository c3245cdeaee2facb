/**
 * The web page follows the event stream (GET /api/events as Server-Sent Events) rather than
 * polling the list: a daemon started from the CLI shows on the page while the page's timers are
 * paused (Playwright's clock), and an idle page asks for the list only at the usage refresh.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox } from "./harness.js"
import { launchChromium, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000
/** The page's slow refresh of the usage columns (REFRESH_MS of src/web/script/base.ts). */
const USAGE_REFRESH_MS = 5000

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

/** When the page asked for the list, in the page's own milliseconds (its resource timings). */
const listRequests = (page: Page): Promise<Array<number>> =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => new URL(e.name).pathname.endsWith("/api/daemons"))
      .map((e) => e.startTime),
  )

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
      let asked = 0
      page.on("request", (r) => {
        if (new URL(r.url()).pathname.endsWith("/api/daemons")) asked++
      })
      ok(["start", "later"])
      await waitStatus(page, "live/later", "running")
      expect(asked).toBeGreaterThan(0)
      await page.context().close()
    },
    T,
  )

  it(
    "an idle page asks for the list only at the usage refresh, not every second",
    async () => {
      const page = await livePage(false)
      // two more list requests after the one of the stream's opening: timer-driven, nothing happens
      const seen = (await listRequests(page)).length
      await page.waitForFunction(
        (n) =>
          performance
            .getEntriesByType("resource")
            .filter((e) => new URL(e.name).pathname.endsWith("/api/daemons")).length >=
          n + 2,
        seen,
        { timeout: 4 * USAGE_REFRESH_MS },
      )
      const times = await listRequests(page)
      const gap = (times.at(-1) ?? 0) - (times.at(-2) ?? 0)
      // a timer never fires early; the old poll asked every 2 s
      expect(gap).toBeGreaterThanOrEqual(USAGE_REFRESH_MS - 50)
      expect(await page.locator("body").getAttribute("data-stream")).toBe("live")
      await page.context().close()
    },
    T,
  )
})
