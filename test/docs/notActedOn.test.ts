/**
 * The configuration reference promises only what works: every key that is parsed and validated
 * but not acted on yet says so in its own section (or settings row), and no other section does.
 * Building one of these features means removing its line here and in docs/configuration.md.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const doc = readFileSync(join(__dirname, "../../docs/configuration.md"), "utf8")
const NOTE = "Parsed and validated; not acted on yet."

/** Daemon keys and tables whose section starts with NOTE. */
const PENDING_SECTIONS: ReadonlyArray<string> = []
/** Settings whose row ends with "(parsed and validated; not acted on yet)". */
const PENDING_SETTINGS: ReadonlyArray<string> = []

/** The text of each `##`/`###` section, by heading. */
const sections = new Map(
  doc
    .split(/^#{2,3} /m)
    .slice(1)
    .map((s) => [s.slice(0, s.indexOf("\n")).trim(), s.slice(s.indexOf("\n") + 1).trim()] as const),
)

describe("docs/configuration.md: what is not acted on yet", () => {
  it("each pending section starts by saying so", () => {
    for (const name of PENDING_SECTIONS) expect(sections.get(name)?.startsWith(NOTE), name).toBe(true)
  })

  it("no other section says so", () => {
    const saying = [...sections].filter(([, text]) => text.includes(NOTE)).map(([name]) => name)
    expect(saying.sort()).toEqual([...PENDING_SECTIONS].sort())
  })

  it("exactly the pending settings' rows say so", () => {
    const saying = doc
      .split("\n")
      .filter((l) => l.endsWith("(parsed and validated; not acted on yet) |"))
      .map((l) => l.split("`")[1])
    expect(saying).toEqual([...PENDING_SETTINGS])
  })

  it("the README's status names every feature as working, none as pending", () => {
    const readme = readFileSync(join(__dirname, "../../README.md"), "utf8")
    const status = readme.slice(readme.indexOf("> **Status:**"), readme.indexOf("## Quick start"))
    expect(status).not.toContain("Not acted on yet")
    expect(status).toContain("watched files")
    expect(status).toContain("memory\n> and CPU limits")
    expect(status).toContain("`boot_start`")
    expect(status).toContain("`cron`")
    expect(status).toContain("shell hook")
    expect(status).toContain("the reverse proxy")
    expect(status).toContain("`[slugs]`")
  })
})
