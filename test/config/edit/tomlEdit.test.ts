import { Either } from "effect"
import { parse } from "smol-toml"
import { describe, expect, it } from "vitest"
import { setTomlValue } from "../../../src/config/edit/tomlEdit.js"

// comments, blank lines, odd spacing, other tables, a dotted key and a CRLF-free file
const FIXTURE = `# project file
namespace   =   "proj"   # trailing comment

[daemons.api]
run = "node server.js"    # the server
  retry=3

# the settings
[settings.general]
shell   =  "bash -c"   # keep me
	tool_manager = false

[settings.web]   # web things

[groups]
all = ["api"]
`

const set = (text: string, path: ReadonlyArray<string>, value: string) => {
  const r = setTomlValue(text, path, value)
  if (Either.isLeft(r)) throw new Error(r.left)
  return r.right
}

/** The lines of `after` that are not in `before`, and the other way round, by position. */
const changedLines = (before: string, after: string) => {
  const a = before.split("\n")
  const b = after.split("\n")
  let start = 0
  while (start < a.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  return { removed: a.slice(start, a.length - end), added: b.slice(start, b.length - end) }
}

describe("setTomlValue", () => {
  it("replaces an existing value's range only, keeping the line's spacing and comment", () => {
    const out = set(FIXTURE, ["settings", "general", "shell"], '"zsh -c"')
    expect(changedLines(FIXTURE, out)).toEqual({
      removed: ['shell   =  "bash -c"   # keep me'],
      added: ['shell   =  "zsh -c"   # keep me'],
    })
    expect(parse(out)).toMatchObject({ settings: { general: { shell: "zsh -c" } } })
  })

  it("inserts a new key after the table's last key, with its indentation", () => {
    const out = set(FIXTURE, ["settings", "general", "interval"], '"5s"')
    expect(changedLines(FIXTURE, out)).toEqual({ removed: [], added: ['\tinterval = "5s"'] })
    expect(parse(out)).toMatchObject({ settings: { general: { interval: "5s", shell: "bash -c" } } })
  })

  it("inserts into an empty table right after its header", () => {
    const out = set(FIXTURE, ["settings", "web", "bind_port"], "4000")
    expect(changedLines(FIXTURE, out)).toEqual({ removed: [], added: ["bind_port = 4000"] })
    expect(out).toContain("[settings.web]   # web things\nbind_port = 4000\n")
  })

  it("appends a table that is not there, after a blank line", () => {
    const out = set(FIXTURE, ["settings", "api", "auto_start"], "true")
    expect(out.startsWith(FIXTURE)).toBe(true)
    expect(out.slice(FIXTURE.length)).toBe("\n[settings.api]\nauto_start = true\n")
    expect(parse(out)).toMatchObject({ settings: { api: { auto_start: true } }, groups: { all: ["api"] } })
  })

  it("creates the content of an empty file", () => {
    expect(set("", ["settings", "web", "bind_port"], "4000")).toBe("[settings.web]\nbind_port = 4000\n")
  })

  it("appends after a last line without a newline", () => {
    expect(set('namespace = "x"', ["settings", "web", "bind_port"], "1")).toBe(
      'namespace = "x"\n\n[settings.web]\nbind_port = 1\n',
    )
  })

  it("edits a dotted key in place and adds one beside dotted keys", () => {
    const text = '# top\nsettings.general.shell = "sh -c" # dotted\nname = 1\n'
    expect(set(text, ["settings", "general", "shell"], '"bash -c"')).toBe(
      '# top\nsettings.general.shell = "bash -c" # dotted\nname = 1\n',
    )
    const added = set(text, ["settings", "web", "bind_port"], "1")
    expect(added).toBe(
      '# top\nsettings.general.shell = "sh -c" # dotted\nsettings.web.bind_port = 1\nname = 1\n',
    )
    expect(parse(added)).toMatchObject({ settings: { web: { bind_port: 1 } } })
    const inTable = '[settings]\ngeneral.shell = "sh -c"\n'
    expect(set(inTable, ["settings", "general", "interval"], '"1s"')).toBe(
      '[settings]\ngeneral.shell = "sh -c"\ngeneral.interval = "1s"\n',
    )
  })

  it("edits a key of an inline table in place", () => {
    const text = 'settings = { general = { shell = "sh -c" }, web = {} } # inline\n'
    expect(set(text, ["settings", "general", "shell"], '"bash -c"')).toBe(
      'settings = { general = { shell = "bash -c" }, web = {} } # inline\n',
    )
  })

  it("refuses to add a key to an inline table, naming it and its line", () => {
    const text = '# x\nsettings = { general = { shell = "sh -c" } }\n'
    const r = setTomlValue(text, ["settings", "general", "interval"], '"1s"')
    expect(Either.isLeft(r) && r.left).toMatch(
      /settings\.general is an inline table \(line 2\).*\[settings\.general\]/,
    )
    const inner = setTomlValue("[settings]\nweb = { }\n", ["settings", "web", "bind_port"], "1")
    expect(Either.isLeft(inner) && inner.left).toMatch(/settings\.web is an inline table \(line 2\)/)
  })

  it("refuses a table that is set to a value, and a file that is not TOML", () => {
    const r = setTomlValue("settings = 3\n", ["settings", "web", "bind_port"], "1")
    expect(Either.isLeft(r) && r.left).toMatch(/settings is set to a value \(line 1\), not a table/)
    const bad = setTomlValue("[settings\n", ["settings", "web", "bind_port"], "1")
    expect(Either.isLeft(bad) && bad.left).toMatch(/not valid TOML \(line \d+\); fix it first/)
  })

  it("keeps CRLF line endings", () => {
    const text = "[settings.web]\r\nbind_port = 1\r\n"
    expect(set(text, ["settings", "web", "auto_start"], "true")).toBe(
      "[settings.web]\r\nbind_port = 1\r\nauto_start = true\r\n",
    )
  })
})
