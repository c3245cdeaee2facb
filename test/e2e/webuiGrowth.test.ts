/**
 * The web page's views beyond the table (docs/web.md) in Chromium against a real supervisor:
 * the main view's screenshot against a committed baseline, the usage sparklines, actions that
 * match each status, the log filter, the proxy link, project problems, and keyboard shortcuts.
 * One supervisor for the file; every wait is on a condition with a deadline.
 */
import { appendFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { visibleActions } from "../../src/web/actions.js"
import { apiPost, type DaemonSandbox, freePort, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"
import { expectBaseline, screenshotDiffers } from "./screenshot.js"
import { launchChromium, loggedInPage as logIn, row, WAIT, waitStatus } from "./webPage.js"

const T = 60_000
const BASELINE = join(__dirname, "__screenshots__", "webui-main.png")

let sb: DaemonSandbox
let dir: string
let browser: Browser
let webUrl: string
let token: string

const expectOk = (args: Array<string>, cwd = dir) => {
  const r = sb.cli(args, cwd)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

/** The action buttons the row shows, in order. */
const shownActions = (page: Page, id: string) =>
  row(page, id)
    .locator("button[data-action]:visible")
    .evaluateAll((bs) => bs.map((b) => (b as unknown as { dataset: { action: string } }).dataset.action))

/** Waits until the row shows exactly `actions`. */
/** Waits until the row's action has answered: its buttons are enabled again (a key is ignored while busy). */
const waitIdle = (page: Page, id: string) =>
  waitFor(
    `${id}'s action answered`,
    async () => (await row(page, id).locator("button:disabled").count()) === 0,
    {
      timeout: WAIT,
    },
  )

const waitActions = (page: Page, id: string, actions: ReadonlyArray<string>) =>
  waitFor(
    `${id} showing ${actions.join(",")}`,
    async () => {
      const shown = await shownActions(page, id)
      return shown.join(",") === actions.join(",") ? shown : undefined
    },
    { timeout: WAIT },
  )

const loggedInPage = (viewport = { width: 1280, height: 720 }): Promise<Page> =>
  logIn(browser, webUrl, token, { viewport, colorScheme: "light", deviceScaleFactor: 1 })

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.web]
run = "echo web is up; exec sleep 300"
ready_delay = 0.2

[daemons.worker]
run = "exec sleep 301"
ready_delay = 0.2

[daemons.mixed]
run = "printf '%s\\\\n' 'alpha 1' 'Beta 2' 'gamma 3' '<b>delta</b> 4'; exec sleep 302"
ready_delay = 0.2

[daemons.broken]
run = "echo about to fail; exit 3"
ready_delay = 1

[daemons.idle]
run = "exec sleep 303"
`,
  )
  const port = await freePort()
  expectOk(["supervisor", "start", "--web-port", String(port)])
  const status = JSON.parse(expectOk(["supervisor", "status", "--json"]).stdout) as { web_url: string }
  webUrl = `${status.web_url}/`
  token = expectOk(["supervisor", "token"]).stdout.trim()
  expectOk(["start", "web", "worker", "mixed"])
  const broken = sb.cli(["start", "broken"], dir)
  expect(broken.status).toBe(1)
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  sb?.destroy()
})

describe("web page (e2e, Chromium)", () => {
  it(
    "the main view matches the committed screenshot (dynamic cells masked)",
    async () => {
      const page = await loggedInPage()
      await waitStatus(page, "app/web", "running")
      await waitStatus(page, "app/broken", "errored")
      await waitStatus(page, "app/idle", "available")
      await page.locator("#stats", { hasText: /processes/ }).waitFor({ timeout: WAIT })
      const shot = await page.screenshot({
        mask: [page.locator("#stats"), page.locator("td.pid, td.uptime, td.usage")],
        maskColor: "#c8ccd4",
        animations: "disabled",
        caret: "hide",
      })
      // the same view with its header changed: the check must see it
      await page.addStyleTag({ content: "header { background: #1d232b !important; }" })
      const changed = await page.screenshot({ animations: "disabled", caret: "hide" })
      await page.context().close()
      await expectBaseline(browser, BASELINE, shot, join(sb.root, "webui-main.actual.png"))
      expect(await screenshotDiffers(browser, BASELINE, changed)).toBe(true)
    },
    T,
  )

  it(
    "each running daemon's CPU and memory sparklines draw its samples of GET /api/usage, as SVG attributes",
    async () => {
      const page = await loggedInPage()
      const spark = (kind: string) => row(page, "app/web").locator(`svg.spark-${kind}`)
      // three samples at least: a line, not a dot (the stream brings one every 5 s)
      await waitFor(
        "three memory samples",
        async () =>
          ((await spark("memory").getAttribute("data-values")) ?? "").split(",").length >= 3 || undefined,
        { timeout: 3 * WAIT },
      )
      for (const [kind, field] of [
        ["cpu", "cpu_percent"],
        ["memory", "memory_bytes"],
      ] as const) {
        const values = ((await spark(kind).getAttribute("data-values")) ?? "").split(",").map(Number)
        const points = ((await spark(kind).locator("polyline").getAttribute("points")) ?? "").split(" ")
        expect(points).toHaveLength(values.length)
        // right-aligned: the newest sample is at the right edge
        expect(points.at(-1)?.split(",")[0]).toBe(await spark(kind).getAttribute("width"))
        // the page's values are consecutive samples of the history the API serves now
        const usage = (await page.evaluate(async () => (await fetch("api/usage")).json())) as {
          interval_ms: number
          capacity: number
          daemons: Array<{ id: string; samples: Array<Record<string, number>> }>
        }
        expect(usage).toMatchObject({ interval_ms: 5000, capacity: 60 })
        const api = usage.daemons.find((d) => d.id === "app/web")?.samples.map((s) => s[field]) ?? []
        // (once the history is full, its oldest sample may have gone since the page drew it)
        const drawn = api.length === usage.capacity ? values.slice(1) : values
        expect(`,${api.join(",")},`).toContain(`,${drawn.join(",")},`)
        if (kind === "memory") for (const v of values) expect(v).toBeGreaterThan(0)
      }
      // not running: no sparkline
      expect(await row(page, "app/idle").locator("svg.spark-cpu").isVisible()).toBe(false)
      await page.context().close()
    },
    T,
  )

  it(
    "the actions shown match the status: Stop/Restart/Disable while running, Start after a stop, only Enable while disabled",
    async () => {
      const page = await loggedInPage()
      const click = (action: string) =>
        row(page, "app/worker").locator(`button[data-action="${action}"]`).click()
      await waitActions(page, "app/worker", ["stop", "restart", "disable"])
      await waitActions(page, "app/idle", ["start", "disable"])
      await waitActions(page, "app/broken", ["start", "disable"])
      await click("stop")
      await waitStatus(page, "app/worker", "stopped")
      await waitActions(page, "app/worker", ["start", "disable"])
      await click("disable")
      await waitStatus(page, "app/worker", "disabled")
      await waitActions(page, "app/worker", ["enable"])
      await click("enable")
      await waitActions(page, "app/worker", ["start", "disable"])
      await click("start")
      await waitStatus(page, "app/worker", "running")
      await waitActions(page, "app/worker", ["stop", "restart", "disable"])
      // an action that fails says why next to the daemon
      await row(page, "app/broken").locator('button[data-action="start"]').click()
      const broken = row(page, "app/broken")
      await broken.locator(".result.error", { hasText: /exit|code|fail/ }).waitFor({ timeout: WAIT })
      // the error is gone once an action answered ok
      await broken.locator('button[data-action="disable"]').click()
      await broken.locator(".result:not(.error):empty").waitFor({ state: "attached", timeout: WAIT })
      await waitActions(page, "app/broken", ["enable"])
      await page.context().close()
    },
    T,
  )

  it("the action rule, status by status", () => {
    const of = (type: string, enabled = true, next_retry: unknown = null) =>
      visibleActions({ status: { type }, enabled, next_retry })
    expect(of("running")).toEqual(["stop", "restart", "disable"])
    expect(of("waiting")).toEqual(["stop", "restart", "disable"])
    expect(of("running", false)).toEqual(["stop", "enable"])
    expect(of("stopping")).toEqual(["disable"])
    for (const t of ["stopped", "failed", "available", "errored"]) expect(of(t)).toEqual(["start", "disable"])
    expect(of("errored", true, { attempt: 1 })).toEqual(["start", "stop", "disable"])
    expect(of("stopped", true, { attempt: 1 })).toEqual(["start", "stop", "disable"])
    expect(of("disabled", false)).toEqual(["enable"])
  })

  it(
    "the log filter: text case-insensitive, match case, regex; an invalid regex says so and hides nothing",
    async () => {
      const page = await loggedInPage()
      await row(page, "app/mixed").locator(".idlink").click()
      const lines = page.locator("#log-lines .log-line")
      const visible = page.locator("#log-lines .log-line:visible .msg")
      await page.locator("#log-lines .msg", { hasText: "<b>delta</b> 4" }).waitFor({ timeout: WAIT })
      const shown = () => visible.allTextContents()
      const filter = page.locator("#log-filter")

      await filter.fill("beta")
      expect(await shown()).toEqual(["Beta 2"])
      expect(await page.locator("#log-count").textContent()).toBe(`1 of ${await lines.count()} lines`)
      await page.locator("#log-case").check()
      expect(await shown()).toEqual([])
      await page.locator("#log-case").uncheck()

      await page.locator("#log-regex").check()
      await filter.fill("^(alpha|gamma) \\d$")
      expect(await shown()).toEqual(["alpha 1", "gamma 3"])
      await filter.fill("(unclosed")
      const error = page.locator("#log-filter-error")
      await error.waitFor({ state: "visible", timeout: WAIT })
      expect(await error.textContent()).toMatch(/^Invalid regex, nothing is filtered out: /)
      expect(await filter.getAttribute("aria-invalid")).toBe("true")
      expect(await shown()).toContain("alpha 1")
      expect(await visible.count()).toBe(await lines.count())
      // the markup of a line is text, never elements
      expect(await page.locator("#log-lines b").count()).toBe(0)
      await filter.fill("<b>")
      expect(await shown()).toEqual(["<b>delta</b> 4"])
      expect(await error.isHidden()).toBe(true)
      await filter.fill("")
      expect(await visible.count()).toBe(await lines.count())
      expect(await page.locator("#log-count").textContent()).toBe("")
      await page.context().close()
    },
    T,
  )

  it(
    "a slug shows as a note while the proxy is off, then as a link opening a new tab without referrer",
    async () => {
      expectOk(["proxy", "add", "shop", "--daemon", "web"])
      const page = await loggedInPage()
      const web = row(page, "app/web")
      await web.locator(".slug-note", { hasText: "slug shop (the proxy is off)" }).waitFor({ timeout: WAIT })
      expect(await web.locator("a.proxy-link").isHidden()).toBe(true)
      const port = await freePort()
      // after the [slugs] table that `proxy add` wrote
      appendFileSync(
        join(sb.home, ".config", "supervisor", "config.toml"),
        `\n[settings.proxy]\nenable = true\nhttps = false\nport = ${port}\n`,
      )
      const link = web.locator("a.proxy-link")
      await link.filter({ hasText: `http://shop.localhost:${port}` }).waitFor({ timeout: WAIT })
      expect(await link.getAttribute("href")).toBe(`http://shop.localhost:${port}`)
      expect(await link.getAttribute("target")).toBe("_blank")
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
      expect(await web.locator(".slug-note").isHidden()).toBe(true)
      expectOk(["proxy", "remove", "shop"])
      await link.waitFor({ state: "hidden", timeout: WAIT })
      await page.context().close()
    },
    T,
  )

  it(
    "a known project with an invalid file shows as a banner with its name, directory and problem, until fixed",
    async () => {
      const proj = sb.project("bad", `[daemons.api]\nrun = "exec sleep 304"\n`)
      expect(await apiPost(sb.stateDir, "/api/namespaces", { dir: proj })).toMatchObject({ ok: true })
      const page = await loggedInPage()
      expect(await page.locator("#problems").isHidden()).toBe(true)
      writeFileSync(join(proj, "supervisor.toml"), `[daemons.api]\nrun = 3\n`)
      const item = page.locator('#problems .problem[data-namespace="bad"]')
      await item.waitFor({ timeout: WAIT })
      expect(await item.locator("strong").textContent()).toBe("bad")
      expect(await item.locator("code").textContent()).toBe(proj)
      expect(await item.locator("pre").textContent()).toContain(
        `${join(proj, "supervisor.toml")}:2: daemons.api.run:`,
      )
      writeFileSync(join(proj, "supervisor.toml"), `[daemons.api]\nrun = "exec sleep 304"\n`)
      await page.locator("#problems").waitFor({ state: "hidden", timeout: WAIT })
      await page.context().close()
    },
    T,
  )

  it(
    "keyboard: ? lists the shortcuts, j/k select, x/s/d/e act, l logs, / filters; none fires while typing",
    async () => {
      const page = await loggedInPage()
      const ids = await page
        .locator("#daemons tr")
        .evaluateAll((trs) => trs.map((t) => (t as unknown as { dataset: { id: string } }).dataset.id))
      const cursor = page.locator("#daemons tr.cursor")
      await page.keyboard.press("?")
      const help = page.locator("#help")
      await help.waitFor({ state: "visible", timeout: WAIT })
      expect(await help.locator("kbd", { hasText: /^x$/ }).count()).toBe(1)
      // keys do nothing while the list is open; Esc closes it
      await page.keyboard.press("j")
      expect(await cursor.count()).toBe(0)
      await page.keyboard.press("Escape")
      await help.waitFor({ state: "hidden", timeout: WAIT })

      await page.keyboard.press("j")
      expect(await cursor.getAttribute("data-id")).toBe(ids[0])
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("j")
      expect(await cursor.getAttribute("data-id")).toBe(ids[2])
      await page.keyboard.press("k")
      expect(await cursor.getAttribute("data-id")).toBe(ids[1])
      // to app/web, whatever its place
      const web = ids.indexOf("app/web")
      for (let i = 1; i < web; i++) await page.keyboard.press("j")
      for (let i = 1; i > web; i--) await page.keyboard.press("k")
      expect(await cursor.getAttribute("data-id")).toBe("app/web")

      await page.keyboard.press("x")
      await waitStatus(page, "app/web", "stopped")
      await waitIdle(page, "app/web")
      await page.keyboard.press("s")
      await waitStatus(page, "app/web", "running")
      await waitIdle(page, "app/web")
      // d and e: disabled while running, it keeps Stop and offers Enable; then enabled again
      await page.keyboard.press("d")
      await waitActions(page, "app/web", ["stop", "enable"])
      await waitIdle(page, "app/web")
      await page.keyboard.press("e")
      await waitActions(page, "app/web", ["stop", "restart", "disable"])

      await page.keyboard.press("l")
      await page.locator("#log-title", { hasText: "app/web" }).waitFor({ timeout: WAIT })
      await page.keyboard.press("/")
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
              .id,
        ),
      ).toBe("log-filter")
      // typed into the filter: x stops nothing
      await page.keyboard.type("xs")
      expect(await page.locator("#log-filter").inputValue()).toBe("xs")
      await page.keyboard.press("Escape")
      await page.keyboard.press("Escape")
      await page.locator("#logs").waitFor({ state: "hidden", timeout: WAIT })
      const listed = JSON.parse(expectOk(["list", "--json"]).stdout) as Array<{
        id: { qualified: string }
        status: { type: string }
      }>
      expect(listed.find((d) => d.id.qualified === "app/web")?.status.type).toBe("running")
      await page.context().close()
    },
    T,
  )
})
