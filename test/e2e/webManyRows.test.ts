/**
 * A table of many daemons: each row is laid out on its own (a grid) and a row off screen is
 * neither laid out nor painted (`content-visibility: auto`), while the page still says it is a
 * table of rows and cells to assistive technology, and a row scrolled to shows its daemon.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox } from "./harness.js"
import { launchChromium, loggedInPage, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000
const N = 30
const id = (i: number) => `many/d${String(i).padStart(2, "0")}`

let sb: DaemonSandbox
let browser: Browser
let page: Page

beforeAll(async () => {
  sb = makeDaemonSandbox()
  const dir = sb.project(
    "many",
    Array.from(
      { length: N },
      (_, i) => `[daemons.d${String(i + 1).padStart(2, "0")}]\nrun = "exec sleep 300"\n`,
    ).join("\n"),
  )
  const ok = (args: Array<string>) => {
    const r = sb.cli(args, dir)
    expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
    return r
  }
  ok(["supervisor", "start", "--web-port", String(await freePort())])
  const url = `${JSON.parse(ok(["supervisor", "status", "--json"]).stdout).web_url}/`
  const token = ok(["supervisor", "token"]).stdout.trim()
  ok(["start", "--all"])
  browser = await launchChromium()
  page = await loggedInPage(browser, url, token, { viewport: { width: 1280, height: 720 } }, id(1))
  await waitStatus(page, id(1), "running")
}, T)

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
})

describe("web page with many daemons (e2e, Chromium)", () => {
  it(
    "a table of rows and cells by role: a header row and a row of eight cells per daemon",
    async () => {
      const table = page.getByRole("table", { name: "Daemons" })
      await expect.poll(() => table.getByRole("row").count(), { timeout: WAIT }).toBe(N + 1)
      expect(await table.getByRole("columnheader").allTextContents()).toEqual([
        "ID",
        "Status",
        "PID",
        "Uptime",
        "Ports",
        "CPU",
        "Memory",
        "Actions",
      ])
      expect(await row(page, id(N)).getByRole("cell").count()).toBe(8)
    },
    T,
  )

  it(
    "rows below the fold are skipped by rendering until scrolled to; the columns line up with the header",
    async () => {
      // checkVisibility says false for content that content-visibility: auto skips
      const rendered = (n: number) =>
        row(page, id(n))
          .locator(".status")
          .evaluate((e) =>
            // the DOM's types are not the tests' (no DOM lib): the one method used, said here
            (e as unknown as { checkVisibility: (o: object) => boolean }).checkVisibility({
              contentVisibilityAuto: true,
            }),
          )
      expect(await rendered(1)).toBe(true)
      expect(await rendered(N)).toBe(false)
      await row(page, id(N)).scrollIntoViewIfNeeded()
      await waitStatus(page, id(N), "running")
      // rendered from the next frame on, once the row is found on screen
      await expect.poll(() => rendered(N), { timeout: WAIT }).toBe(true)
      const left = async (selector: string) =>
        Math.round((await page.locator(selector).boundingBox())?.x ?? -1)
      // the status column starts where its header does
      expect(await left(`#daemons tr[data-id="${id(N)}"] td:nth-child(2)`)).toBe(
        await left("thead th:nth-child(2)"),
      )
    },
    T,
  )
})
