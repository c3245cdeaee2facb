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

describe("docs/configuration.md's settings tables", () => {
  const configuration = readFileSync(join(__dirname, "../../docs/configuration.md"), "utf8")
  it("name each setting's environment variable as the loader reads it (SUPERVISOR_<GROUP>_<KEY>)", () => {
    for (const s of settingInfos()) {
      const section = configuration.split(`### \`[settings.${s.group}]\``)[1]?.split("\n### ")[0] ?? ""
      const row = section.split("\n").find((l) => l.startsWith(`| \`${s.name}\` |`))
      if (row === undefined) continue
      expect(row, s.key).toContain(`\`${s.env}\``)
    }
  })
})
