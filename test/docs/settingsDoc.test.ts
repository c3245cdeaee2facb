/**
 * docs/settings.md's table is the settings Schema's: `npm run schemas` writes it, and this test
 * (like `npm run schemas:check`) fails when a setting was added, removed or changed without it.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { settingsTable, withSettingsTable } from "../../src/config/settingsDoc.js"
import { settingInfos } from "../../src/config/settingsInfo.js"

const page = readFileSync(join(__dirname, "../../docs/settings.md"), "utf8")

describe("docs/settings.md", () => {
  it("has the table of today's settings Schema (run `npm run schemas` after changing a setting)", () => {
    expect(page).toBe(withSettingsTable(page))
  })

  it("names every setting with its environment variable", () => {
    for (const s of settingInfos()) expect(settingsTable()).toContain(`| \`${s.key}\` |`)
    for (const s of settingInfos()) expect(page).toContain(`\`${s.env}\``)
  })
})
