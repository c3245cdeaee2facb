import { describe, expect, it } from "vitest"
import { type CommandDescription, describeCommand, listCommands } from "../../../src/usage/consume/index.js"
import { invalidSchema, spec, validSchema } from "./fixture.js"

const describeOk = (path: ReadonlyArray<string>): CommandDescription => {
  const result = describeCommand(spec, path)
  if (!result.ok) throw new Error(result.error)
  return result.command
}

describe("describeCommand", () => {
  it("describes a nested command found by aliases, with its canonical path and usage", () => {
    const list = describeOk(["d", "ls"])
    expect(list.name).toBe("list")
    expect(list.path).toEqual(["daemons", "list"])
    expect(list.aliases).toEqual(["ls"])
    expect(list.usage).toBe("demo daemons list [FLAGS]")
    expect(list.help).toBe("List daemons")
  })

  it("includes inherited global flags, with the command's own selector choices and their help", () => {
    const list = describeOk(["daemons", "list"])
    expect(list.flags.map((f) => f.names)).toEqual([
      ["-f", "--format"],
      ["-v", "--verbose"],
    ])
    expect(list.flags[0]).toEqual({
      names: ["-f", "--format"],
      help: "Output format",
      takes_value: true,
      value_name: "FMT",
      value_optional: false,
      choices: [
        { value: "text", help: "Human-readable table" },
        { value: "json", help: "One JSON document" },
        { value: "xml", help: "An XML document" },
      ],
      default: null,
      global: true,
      repeatable: false,
      required: false,
      env: null,
      negate: null,
      deprecated: null,
      effect: null,
    })
    expect(list.flags[1]).toMatchObject({
      takes_value: false,
      choices: null,
      value_name: null,
      repeatable: true,
    })
  })

  it("describes outputs: a valid schema parsed, an invalid one kept as text, selectors as given", () => {
    const status = describeOk(["status"])
    expect(status.outputs).toEqual([
      {
        name: "text",
        framing: "text",
        media_type: null,
        help: "Human-readable table",
        default: true,
        selector: { kind: "value", flag: "--format", value: "text" },
        schema: null,
      },
      {
        name: "json",
        framing: "json",
        media_type: "application/json",
        help: "One JSON document",
        default: false,
        selector: { kind: "present", flag: "--json" },
        schema: JSON.parse(validSchema),
      },
      {
        name: "jsonl",
        framing: "jsonl",
        media_type: "application/jsonl",
        help: "One JSON event per line",
        default: false,
        selector: { kind: "value", flag: "--format", value: "jsonl" },
        schema: invalidSchema,
      },
    ])
    expect(status.outputs[1]!.schema).toMatchObject({ type: "object", required: ["daemons"] })
  })

  it("keeps JSON that is not a schema (an array) as text", () => {
    const root = { ...spec.root, outputs: [{ ...spec.root.outputs[1]!, schema: "[1, 2]" }] }
    const result = describeCommand({ ...spec, root }, [])
    expect(result.ok && result.command.outputs[0]!.schema).toBe("[1, 2]")
  })

  it("lists exit codes (with the command's refinement), args and subcommands", () => {
    const stop = describeOk(["daemons", "stop"])
    expect(stop.exit_codes).toEqual([
      { code: 0, description: "Success" },
      { code: 1, description: "A daemon did not stop" },
      { code: 130, description: "Interrupted (SIGINT)" },
    ])
    expect(stop.args).toEqual([
      {
        name: "name",
        usage: "<name>...",
        help: "Daemons to stop",
        required: true,
        variadic: true,
        choices: null,
        default: null,
        env: null,
        double_dash: null,
      },
    ])
    expect(describeOk([]).subcommands).toEqual(["status", "daemons"])
    expect(describeOk([]).exit_codes[1]!.description).toBe("Failure | see the supervisor log")
  })

  it("describes a hidden command named exactly, without its hidden flags", () => {
    const debug = describeOk(["debug"])
    expect(debug.name).toBe("debug")
    expect(debug.flags.flatMap((f) => f.names)).not.toContain("--trace")
  })

  it("names an unknown command and lists the known ones", () => {
    const result = describeCommand(spec, ["daemons", "frob"])
    expect(result).toEqual({
      ok: false,
      error: 'unknown command "demo daemons frob": "frob" is not a subcommand of "demo daemons"',
      known: ["status", "daemons", "daemons list", "daemons stop", "daemons restart"],
    })
  })

  it("is plain JSON (round-trips through JSON.stringify)", () => {
    const described = describeOk(["status"])
    expect(JSON.parse(JSON.stringify(described))).toEqual(described)
  })
})

describe("listCommands", () => {
  it("lists every visible command depth first, the program first", () => {
    expect(listCommands(spec)).toEqual([
      { path: [], help: "A demo supervisor", effect: null },
      { path: ["status"], help: "Show the status of every daemon", effect: null },
      { path: ["daemons"], help: "Manage daemons", effect: null },
      { path: ["daemons", "list"], help: "List daemons", effect: null },
      { path: ["daemons", "stop"], help: "Stop daemons", effect: null },
      { path: ["daemons", "restart"], help: "Restart one daemon", effect: null },
    ])
  })

  it("includes hidden commands, marked, on request (a hidden parent hides its children)", () => {
    const all = listCommands(spec, { includeHidden: true })
    expect(all.filter((c) => c.hidden === true)).toEqual([
      { path: ["debug"], help: "Internal debugging", effect: null, hidden: true },
      { path: ["debug", "dump"], help: "Dump internal state", effect: null, hidden: true },
    ])
    expect(all).toHaveLength(8)
  })
})
