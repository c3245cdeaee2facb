/**
 * The web page on a phone (390 px) and a tablet (768 px) in Chromium against a real supervisor:
 * every daemon's ID on screen whole (not squeezed to a character a line), every field and action
 * inside the viewport, the page never wider than it, an action that works by a tap; the page's
 * icon served (no 404 at each load), and a used login link answered by a page in the same style.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, STACK_LINE } from "./harness.js"
import { launchChromium, loggedInPage, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000
const LONG = "a-rather-long-daemon-name-for-phones"

let sb: DaemonSandbox
let dir: string
let browser: Browser
let webUrl: string
let token: string

const expectOk = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    [
      "[daemons.web]",
      'run = "exec sleep 300"',
      "ready_delay = 0.2",
      "[daemons.worker]",
      'run = "exec sleep 301"',
      "ready_delay = 0.2",
      `[daemons.${LONG}]`,
      'run = "exec sleep 302"',
      "ready_delay = 0.2",
      "[daemons.idle]",
      'run = "exec sleep 303"',
      "",
    ].join("\n"),
  )
  const port = await freePort()
  expectOk(["supervisor", "start", "--web-port", String(port)])
  const status = JSON.parse(expectOk(["supervisor", "status", "--json"]).stdout) as { web_url: string }
  webUrl = `${status.web_url}/`
  token = expectOk(["supervisor", "token"]).stdout.trim()
  expectOk(["start", "web", "worker", LONG])
  browser = await launchChromium()
}, T)

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
}, T)

interface Box {
  readonly what: string
  readonly left: number
  readonly right: number
  readonly height: number
  readonly lineHeight: number
  readonly clipped: boolean
}

/** Where each row's ID, other cells and visible action buttons are drawn. */
const boxes = (page: Page): Promise<ReadonlyArray<Box>> =>
  page.locator("#daemons tr").evaluateAll((trs) => {
    // the page's own DOM types are not in this project's lib: the few members used, by hand
    interface El {
      getBoundingClientRect(): { left: number; right: number; height: number }
      scrollWidth: number
      clientWidth: number
      hidden: boolean
      textContent: string | null
      querySelectorAll(s: string): ArrayLike<El>
      dataset: Record<string, string | undefined>
    }
    const g = globalThis as unknown as { getComputedStyle(e: El): { lineHeight: string } }
    const out: Array<Box> = []
    const add = (what: string, e: El) => {
      const r = e.getBoundingClientRect()
      out.push({
        what,
        left: r.left,
        right: r.right,
        height: r.height,
        lineHeight: Number.parseFloat(g.getComputedStyle(e).lineHeight),
        clipped: e.scrollWidth > e.clientWidth + 1,
      })
    }
    for (const tr of trs as unknown as ReadonlyArray<El>) {
      const id = tr.dataset.id ?? "?"
      const link = Array.from(tr.querySelectorAll(".idlink"))[0]!
      add(`${id}: ID`, link)
      const cells = Array.from(tr.querySelectorAll("td")).slice(1)
      cells.forEach((td, i) => {
        add(`${id}: ${td.dataset.label ?? `column ${i + 2}`}`, td)
      })
      for (const b of Array.from(tr.querySelectorAll("button[data-action]")))
        if (!b.hidden) add(`${id}: ${b.textContent}`, b)
    }
    return out
  })

describe("web page on narrow screens (e2e, Chromium)", () => {
  for (const width of [390, 768])
    it(
      `at ${width} px: IDs whole, every field and action on screen, no sideways scroll`,
      async () => {
        const page = await loggedInPage(browser, webUrl, token, {
          viewport: { width, height: 800 },
          colorScheme: "light",
          deviceScaleFactor: 1,
        })
        try {
          for (const id of ["app/web", "app/worker", `app/${LONG}`]) await waitStatus(page, id, "running")
          const drawn = await boxes(page)
          // three running rows at least: the ID, seven other cells and an action each
          expect(drawn.length).toBeGreaterThanOrEqual(3 * 9)
          const inside = drawn.filter((b) => b.left < 0 || b.right > width).map((b) => b.what)
          expect(inside, "drawn outside the viewport").toEqual([])
          expect(
            drawn.filter((b) => b.clipped).map((b) => b.what),
            "cut off",
          ).toEqual([])
          // a short ID is one line: the column is not squeezed to a character or two
          for (const id of ["app/web", "app/worker"]) {
            const b = drawn.find((d) => d.what === `${id}: ID`)!
            expect(b.height, `${id} at ${width} px`).toBeLessThan(b.lineHeight * 1.6)
          }
          const pageWidth = await page.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
                .documentElement.scrollWidth,
          )
          expect(pageWidth).toBeLessThanOrEqual(width)
        } finally {
          await page.context().close()
        }
      },
      T,
    )

  it(
    "an action works by a tap at 390 px",
    async () => {
      const page = await loggedInPage(browser, webUrl, token, {
        viewport: { width: 390, height: 800 },
        hasTouch: true,
        isMobile: true,
      })
      try {
        await waitStatus(page, "app/worker", "running")
        await row(page, "app/worker").locator('button[data-action="stop"]').tap({ timeout: WAIT })
        await waitStatus(page, "app/worker", "stopped")
      } finally {
        await page.context().close()
      }
    },
    T,
  )

  it(
    "serves the page's icon, and a load of the page answers no request with 404",
    async () => {
      const page = await (await browser.newContext()).newPage()
      try {
        const missing: Array<string> = []
        page.on("response", (r) => {
          if (r.status() === 404) missing.push(r.url())
        })
        await page.goto(webUrl)
        const icons = page.locator('link[rel="icon"]')
        expect(await icons.count()).toBe(1)
        const href = await icons.evaluate((l) => (l as unknown as { href: string }).href)
        for (const url of [new URL("/favicon.ico", webUrl).href, href]) {
          const icon = await page.request.get(url)
          expect(icon.status(), url).toBe(200)
          expect(icon.headers()["content-type"]).toBe("image/svg+xml")
          expect(await icon.text()).toContain("<svg")
        }
        expect(missing).toEqual([])
      } finally {
        await page.context().close()
      }
    },
    T,
  )

  it(
    "a used login link gets a page in the web page's style, with the way back",
    async () => {
      const link = expectOk(["web"]).stdout.trim()
      const page = await (await browser.newContext({ colorScheme: "light" })).newPage()
      try {
        await page.goto(link) // the first use logs in
        await row(page, "app/web").waitFor({ timeout: WAIT })
        const again = await page.goto(link)
        expect(again?.status()).toBe(401)
        await expect(page.locator("header h1").textContent()).resolves.toBe("supervisor")
        const card = page.locator("section.card")
        await expect(card.textContent()).resolves.toContain("used already")
        // the stylesheet of the page: its background and the card's panel colour
        const colours = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { body: unknown; querySelector(s: string): unknown }
            getComputedStyle(e: unknown): { backgroundColor: string }
          }
          return [
            g.getComputedStyle(g.document.body).backgroundColor,
            g.getComputedStyle(g.document.querySelector("section.card")).backgroundColor,
          ]
        })
        expect(colours).toEqual(["rgb(246, 247, 249)", "rgb(255, 255, 255)"])
        await card.locator("a", { hasText: "Back" }).click()
        await row(page, "app/web").waitFor({ timeout: WAIT })
      } finally {
        await page.context().close()
      }
    },
    T,
  )
})
