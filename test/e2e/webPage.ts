/**
 * The web UI's browser tests' common parts: the system Chromium (playwright-core has no browser
 * of its own), a daemon's row, waiting for its status, and a page logged in with the token.
 */
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

const CHROMIUM = "/usr/bin/chromium"
/** How long a wait on the page may take before the test fails. */
export const WAIT = 15_000

/** Debian's Chromium, headless; a clear error when it is not installed. */
export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
}

/** The table row of daemon `id`. */
export const row = (page: Page, id: string) => page.locator(`#daemons tr[data-id="${id}"]`)

/** Waits until the table shows `type` as the status of `id`. */
export const waitStatus = (page: Page, id: string, type: string) =>
  row(page, id)
    .locator(".status", { hasText: new RegExp(`^${type}$`) })
    .waitFor({ timeout: WAIT })

/** A fresh browser context logged in with the token through the page's form, the table shown (`shown`'s row). */
export const loggedInPage = async (
  browser: Browser,
  url: string,
  token: string,
  context: Parameters<Browser["newContext"]>[0] = {},
  shown = "app/web",
): Promise<Page> => {
  const page = await (await browser.newContext(context)).newPage()
  await page.goto(url)
  await page.locator("#token").fill(token)
  await page.locator("#login-form button[type=submit]").click()
  await row(page, shown).waitFor({ timeout: WAIT })
  return page
}
