/**
 * docs/compatibility.md in step with the CLI: every command, alias and flag of the usage spec and
 * every key of the JSON Schema has a row; a row that says we have something names what we have;
 * a row that says "not yet" names something we do not have (so building it means updating the row).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import { cliSpec } from "../../src/cli/usageSpec/cliSpec.js"
import type { Command } from "../../src/usage/model.js"
import { parseCompatibility, type Row, VERDICTS } from "./compatibilityTable.js"

const doc = parseCompatibility(readFileSync(join(__dirname, "../../docs/compatibility.md"), "utf8"))
const spec = cliSpec(rootCommand, { version: "0.0.0-test" })
const schema = JSON.parse(readFileSync(join(__dirname, "../../schemas/supervisor.schema.json"), "utf8"))

/** Our command at these words (names or aliases), or undefined. */
const commandAt = (words: ReadonlyArray<string>): Command | undefined => {
  let command: Command | undefined = spec.root
  for (const word of words)
    command = command?.subcommands.find((c) => c.name === word || c.aliases.includes(word))
  return command
}

/** The flag names a command takes: its own, and at the root the global ones. */
const flagNames = (command: Command): ReadonlyArray<string> =>
  command.flags
    .filter((f) => command === spec.root || !f.global)
    .flatMap((f) => [...f.long.map((l) => `--${l}`), ...f.short.map((s) => `-${s}`)])

/** Words before the first flag (the command), then the flags. */
const split = (cell: string) => {
  const words = cell.split(/\s+/).filter((w) => w !== "")
  const at = words.findIndex((w) => w.startsWith("-"))
  return at === -1 ? { command: words, flags: [] } : { command: words.slice(0, at), flags: words.slice(at) }
}

const rows = (section: string): ReadonlyArray<Row> => {
  const found = doc.get(section)
  expect(found, `docs/compatibility.md has a "## ${section}" table`).toBeDefined()
  return found!
}

const has = (verdict: Row["verdict"]) => verdict !== "not yet" && verdict !== "not planned"

/** A key path (`daemons.<name>.run`, `settings.web.base_path`) in the JSON Schema, or undefined. */
const keyAt = (path: string): unknown => {
  const resolve = (node: Record<string, unknown>): Record<string, unknown> => {
    const ref = node.$ref
    return typeof ref === "string" ? resolve(schema.$defs[ref.split("/").pop()!]) : node
  }
  let node: Record<string, unknown> | undefined = resolve(schema)
  for (const part of path.split(".")) {
    if (node === undefined) return undefined
    const properties = node.properties as Record<string, Record<string, unknown>> | undefined
    const next: Record<string, unknown> | undefined =
      part === "<name>"
        ? (node.additionalProperties as Record<string, unknown> | undefined)
        : properties !== undefined && Object.hasOwn(properties, part)
          ? properties[part]
          : undefined
    node = next === undefined ? undefined : resolve(next)
    // a key that is a table or a value (`cron = "..."` or `cron = { ... }`): look into the table
    if (node !== undefined && node.properties === undefined && Array.isArray(node.anyOf)) {
      const table: Record<string, unknown> | undefined = (node.anyOf as Array<Record<string, unknown>>)
        .map(resolve)
        .find((n) => n.properties !== undefined)
      if (table !== undefined) node = table
    }
  }
  return node
}

describe("docs/compatibility.md", () => {
  it("uses the verdicts it defines", () => {
    for (const section of ["Commands", "Flags", "Configuration keys"])
      for (const row of rows(section)) expect(VERDICTS, `${section}: ${row.line}`).toContain(row.verdict)
  })

  it("Commands: every command and alias of ours has a row; what a row names exists, or does not yet", () => {
    const named = new Set<string>()
    for (const row of rows("Commands")) {
      if (row.ours !== undefined) {
        const words = row.ours.split(/\s+/).slice(1)
        expect(commandAt(words), `${row.line}: no command ${row.ours}`).toBeDefined()
        named.add(words.join(" "))
      }
      if (!has(row.verdict)) {
        expect(row.ours, `${row.line}: a "${row.verdict}" row names nothing of ours`).toBeUndefined()
        const words = row.pitchfork!.split(/\s+/).slice(1)
        expect(commandAt(words), `${row.line}: we have it now; update the row`).toBeUndefined()
      }
    }
    const missing: Array<string> = []
    const visit = (command: Command) => {
      for (const sub of command.subcommands) {
        if (sub.hide) continue
        const parent = sub.path.slice(0, -1)
        for (const name of [sub.name, ...sub.aliases])
          if (!named.has([...parent, name].join(" "))) missing.push([...parent, name].join(" "))
        visit(sub)
      }
    }
    visit(spec.root)
    expect(missing, "commands of ours without a row in docs/compatibility.md").toEqual([])
  })

  it("Flags: every flag of ours has a row; what a row names exists, or does not yet", () => {
    const named = new Map<string, Set<string>>()
    for (const row of rows("Flags")) {
      if (row.ours !== undefined) {
        const { command, flags } = split(row.ours)
        const ours = commandAt(command)
        expect(ours, `${row.line}: no command ${command.join(" ")}`).toBeDefined()
        const path = ours!.path.join(" ")
        for (const flag of flags) {
          expect(flagNames(ours!), `${row.line}: ${path} has no ${flag}`).toContain(flag)
          named.set(path, (named.get(path) ?? new Set()).add(flag))
        }
      }
      if (!has(row.verdict)) {
        expect(row.ours, `${row.line}: a "${row.verdict}" row names nothing of ours`).toBeUndefined()
        const { command, flags } = split(row.pitchfork!)
        const ours = commandAt(command)
        if (ours !== undefined)
          for (const flag of flags)
            expect(flagNames(ours), `${row.line}: we have ${flag} now; update the row`).not.toContain(flag)
      }
    }
    const missing: Array<string> = []
    const visit = (command: Command) => {
      if (!command.hide)
        for (const flag of flagNames(command))
          if (!named.get(command.path.join(" "))?.has(flag))
            missing.push(`${command.path.join(" ")} ${flag}`.trim())
      for (const sub of command.subcommands) visit(sub)
    }
    visit(spec.root)
    expect(missing, "flags of ours without a row in docs/compatibility.md").toEqual([])
  })

  it("Configuration keys: every key of the JSON Schema has a row; what a row names exists, or does not yet", () => {
    const named = new Set<string>()
    for (const row of rows("Configuration keys")) {
      if (row.ours !== undefined) {
        expect(keyAt(row.ours), `${row.line}: the JSON Schema has no ${row.ours}`).toBeDefined()
        named.add(row.ours)
      }
      if (!has(row.verdict)) {
        expect(row.ours, `${row.line}: a "${row.verdict}" row names nothing of ours`).toBeUndefined()
        expect(keyAt(row.pitchfork!), `${row.line}: we have it now; update the row`).toBeUndefined()
      }
    }
    const missing: Array<string> = []
    const keysOf = (path: string) => {
      const node = keyAt(path) as { properties?: Record<string, unknown> } | undefined
      return Object.keys(node?.properties ?? {}).map((k) => (path === "" ? k : `${path}.${k}`))
    }
    const expected = [
      ...keysOf("").filter((k) => k !== "daemons" && k !== "settings"),
      ...keysOf("daemons.<name>"),
      ...keysOf("settings").flatMap((group) => keysOf(group)),
    ]
    for (const key of expected) if (!named.has(key)) missing.push(key)
    expect(missing, "keys of ours without a row in docs/compatibility.md").toEqual([])
  })
})
