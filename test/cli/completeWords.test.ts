import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { settingKeys } from "../../src/cli/actions/complete.js"
import { rootCommand } from "../../src/cli/commands.js"
import { cliSpec } from "../../src/cli/usageSpec/cliSpec.js"
import { allCommands } from "../../src/usage/consume/commands.js"
import { completionTable } from "../../src/usage/consume/completion-table.js"

const spec = cliSpec(rootCommand, { version: "0.0.0-test" })
const schema = JSON.parse(readFileSync(join(__dirname, "../../schemas/supervisor.schema.json"), "utf8"))

describe("settingKeys", () => {
  it("is every key of every settings table of the JSON Schema", () => {
    const ref = (node: { $ref?: string }) => schema.$defs[node.$ref!.split("/").pop()!]
    const settings = ref(schema).properties.settings
    // the tables; pitchfork's flat keys directly under [settings] are spellings, not settings
    const expected = Object.entries(settings.properties as Record<string, { $ref?: string }>)
      .filter(([, node]) => node.$ref !== undefined && ref(node)?.properties !== undefined)
      .flatMap(([group, node]) => Object.keys(ref(node).properties).map((k) => `settings.${group}.${k}`))
    expect([...settingKeys()].sort()).toEqual(expected.sort())
  })
})

describe("the CLI's completers", () => {
  const table = completionTable(spec)
  const runOf = (path: string, name: string) => {
    const node = table.find((n) => n.command.path.join(" ") === path)!
    const arg = node.args.find((a) => a.arg.name === name)
    const flag = node.flags.find((f) => f.flag.long.includes(name))
    const value = arg?.value ?? flag?.value
    return value?.kind === "run" ? value.complete.run : undefined
  }

  it("complete every daemon ID argument, --group and config get's key by calling the CLI", () => {
    const withId = allCommands(spec).filter((c) => c.args.some((a) => a.name === "id"))
    expect(withId.map((c) => c.path.join(" "))).toEqual(
      expect.arrayContaining(["start", "stop", "restart", "enable", "disable", "status", "logs", "wait"]),
    )
    for (const c of withId)
      expect(runOf(c.path.join(" "), "id"), c.path.join(" ")).toBe("supervisor complete daemons")
    for (const path of ["start", "stop", "restart"])
      expect(runOf(path, "group")).toBe("supervisor complete groups")
    expect(runOf("config get", "key")).toBe("supervisor complete settings")
  })

  it("supervisor complete is hidden: accepted, never listed or offered", () => {
    const complete = spec.root.subcommands.find((c) => c.name === "complete")
    expect(complete?.hide).toBe(true)
    expect(complete?.args[0]?.choices?.map((c) => c.value)).toEqual(["daemons", "groups", "settings"])
  })
})
