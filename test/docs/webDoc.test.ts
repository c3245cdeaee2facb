// docs/web.md says what the page does: its shortcut table and its actions table follow the code.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { STATUS_TYPES } from "../../src/domain/DaemonStatus.js"
import { visibleActions } from "../../src/web/actions.js"
import { SHORTCUTS } from "../../src/web/shortcuts.js"

const doc = readFileSync(join(__dirname, "../../docs/web.md"), "utf8")

/** The rows of the markdown table under `## heading`, as cells. */
const tableUnder = (heading: string): Array<Array<string>> => {
  const section = doc.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? ""
  return section
    .split("\n")
    .filter((l) => l.startsWith("|") && !l.startsWith("|---"))
    .slice(1)
    .map((l) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    )
}

describe("docs/web.md", () => {
  it("lists every keyboard shortcut of the page, and no other", () => {
    const documented = tableUnder("Keyboard shortcuts").map(([keys]) =>
      [...(keys ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(" "),
    )
    expect(documented).toEqual(SHORTCUTS.map(([keys]) => keys.split(/\s+/).join(" ")))
  })

  it("the actions table says, for every status, which of Start, Stop and Restart show", () => {
    const rows = tableUnder("Actions")
    const covered = new Set<string>()
    for (const [statuses, start, stop, restart] of rows) {
      for (const [, type] of (statuses ?? "").matchAll(/`([a-z]+)`/g)) {
        covered.add(type as string)
        const enabled = type !== "disabled"
        const plain = visibleActions({ status: { type: type as string }, enabled, next_retry: null })
        const retrying = visibleActions({ status: { type: type as string }, enabled, next_retry: {} })
        expect([type, plain.includes("start")]).toEqual([type, start !== ""])
        expect([type, retrying.includes("stop")]).toEqual([type, stop !== ""])
        expect([type, plain.includes("stop")]).toEqual([type, stop === "✓"])
        expect([type, plain.includes("restart")]).toEqual([type, restart !== ""])
      }
    }
    expect([...covered].sort()).toEqual([...STATUS_TYPES].sort())
  })
})
