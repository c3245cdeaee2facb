import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { rootCommand } from "../../../src/cli/commands.js"
import { cliSpec, cliSpecKdl, unknownExtraPaths } from "../../../src/cli/usageSpec/cliSpec.js"
import { readCliTree } from "../../../src/cli/usageSpec/effectCli.js"
import { READY_TIMEOUT_STATUS } from "../../../src/domain/StartOutcome.js"
import { allCommands, describeCommand } from "../../../src/usage/consume/index.js"
import { parseSpecString } from "../../../src/usage/index.js"
import type { Command } from "../../../src/usage/model.js"

// The CLI's own usage spec, generated from the real @effect/cli tree and the outputs table.
const kdl = cliSpecKdl(rootCommand, { version: "0.0.0-test" })
const spec = Effect.runSync(parseSpecString(kdl))
const byPath = new Map(allCommands(spec).map((c) => [c.path.join(" "), c]))
const command = (path: string): Command => {
  const c = byPath.get(path)
  if (c === undefined) throw new Error(`no command "${path}"`)
  return c
}

describe("the supervisor CLI's usage spec", () => {
  it("parses without problems and round-trips to the generated model", () => {
    expect(spec).toEqual(cliSpec(rootCommand, { version: "0.0.0-test" }))
    expect(spec.bin).toBe("supervisor")
  })

  it("has every command of the @effect/cli tree", () => {
    const paths: Array<string> = []
    const visit = (t: ReturnType<typeof readCliTree>, path: ReadonlyArray<string>): void => {
      paths.push(path.join(" "))
      for (const s of t.subcommands) visit(s, [...path, s.name])
    }
    visit(readCliTree(rootCommand), [])
    expect([...byPath.keys()]).toEqual(paths)
    for (const p of ["list", "start", "logs", "supervisor status", "config show", "spec check", "usage"])
      expect(byPath.has(p)).toBe(true)
  })

  it("the outputs table names only existing commands", () => {
    expect(unknownExtraPaths(rootCommand)).toEqual([])
  })

  it("list: a json output selected by --json, with a schema that parses", () => {
    const json = command("list").outputs.find((o) => o.name === "json")!
    expect(json).toMatchObject({
      framing: "json",
      media_type: "application/json",
      selector: { kind: "present", flag: "--json" },
    })
    const schema = JSON.parse(json.schema!)
    expect(schema.type).toBe("array")
    expect(schema.items.$ref).toBe("#/$defs/ApiDaemonEntry")
    expect(Object.keys(schema.$defs.ApiDaemonEntry.properties)).toContain("status")
    expect(command("list").aliases).toEqual(["ls"])
  })

  it("every --json flag selects a json output with a schema (jsonl for a command that only follows)", () => {
    const checked: Array<string> = []
    for (const c of allCommands(spec)) {
      if (!c.flags.some((f) => f.long.includes("json"))) continue
      checked.push(c.path.join(" "))
      const selected = c.outputs.filter((o) => o.selector?.kind === "present" && o.selector.flag === "--json")
      const framing = c.path.join(" ") === "events" ? "jsonl" : "json"
      expect(selected.map((o) => [c.path.join(" "), o.framing, o.schema !== undefined])).toEqual([
        [c.path.join(" "), framing, true],
      ])
    }
    expect(checked).toEqual(
      expect.arrayContaining(["list", "status", "start", "logs", "config show", "events"]),
    )
  })

  it("logs: json without --tail, jsonl (ndjson) with it, cleared with --clear", () => {
    expect(command("logs").outputs.map((o) => [o.name, o.framing, o.media_type])).toEqual([
      ["text", "text", "text/plain"],
      ["json", "json", "application/json"],
      ["jsonl", "jsonl", "application/x-ndjson"],
      ["cleared", "json", "application/json"],
    ])
  })

  it("exit codes: 0/1/2 everywhere, 124 for start/restart/run", () => {
    expect(command("").exit_codes.map((e) => e.code)).toEqual([0, 1, 2])
    for (const p of ["start", "restart", "run"])
      expect(command(p).exit_codes.map((e) => e.code)).toEqual([0, 1, 2, READY_TIMEOUT_STATUS])
    expect(command("wait").long_help).toMatch(/daemon's own exit status/)
  })

  it("the MCP description of `list` carries the parsed schema", () => {
    const result = describeCommand(spec, ["ls"])
    if (!result.ok) throw new Error(result.error)
    const json = result.command.outputs.find((o) => o.name === "json")!
    expect(json.schema).toMatchObject({ type: "array" })
  })
})
