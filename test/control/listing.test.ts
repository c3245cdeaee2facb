import { describe, expect, it } from "vitest"
import { configDefinitions } from "../../src/config/definitions.js"
import { mergeDefinitions, mergeListing } from "../../src/control/listing.js"
import { loadOk, toml, useSandbox } from "../config/helpers.js"

const sandbox = useSandbox()

describe("mergeListing (supervisor list: the supervisor's entries and this project's configuration)", () => {
  it("a never-run entry of a known project is replaced by the definition read here; others are kept", async () => {
    const sb = sandbox()
    sb.write({ "w/app/supervisor.toml": toml("[daemons.web]", 'run = "old"', "[daemons.db]", 'run = "db"') })
    const before = await loadOk(sb, { cwd: "w/app" })
    // the supervisor's listing: app/web and app/db as available (its snapshot), other/x too
    sb.write({ "w/other/supervisor.toml": toml("[daemons.x]", 'run = "x"') })
    const other = await loadOk(sb, { cwd: "w/other" })
    const known = mergeDefinitions(
      [],
      [],
      [...configDefinitions(before).values(), ...configDefinitions(other).values()],
    )
    sb.write({ "w/app/supervisor.toml": toml("[daemons.web]", 'run = "new"', "[daemons.db]", 'run = "db"') })
    const now = await loadOk(sb, { cwd: "w/app" })
    const listed = mergeListing(known, [], now)
    expect(listed.map((e) => [e.id.qualified, e.status.type, e.run])).toEqual([
      ["app/db", "available", "db"],
      ["app/web", "available", "new"],
      ["other/x", "available", "x"],
    ])
  })
})
