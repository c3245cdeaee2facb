import { describe, expect, it } from "vitest"
import { RETRIGGER_CHOICES } from "../../../src/cli/args/daemonsEdit.js"
import { addDaemon, declaredIds, findDaemon, removeDaemon } from "../../../src/config/edit/daemonEdit.js"
import { daemonTables, tomlString } from "../../../src/config/edit/daemonToml.js"
import { RETRIGGERS } from "../../../src/domain/DaemonOptions.js"

/** A hand-written file: comments, odd spacing, blank lines, other tables, dotted keys, sub-tables. */
const FIXTURE = `#:schema ./schemas/supervisor.json
# The project's daemons.
namespace   =  "shop"   # kept as typed

[settings.general]
autostop_delay = "5s"


# The database.
[daemons.db]
run = 'exec postgres -D ./data'   # literal string
ready_port=5432

[daemons.db.env]
PGDATA = "./data"

# The web server: listens on 3000.
[daemons.web]
run = "exec node server.js"
depends = [
  "db",   # first
]
# a note inside web, after its keys

[daemons.web.hooks]
on_ready = "echo up"
# worker's own comment
[daemons.worker]
run = "exec ./worker"

[daemons]
cache.run = "exec redis-server"
inline = { run = "exec ./inline" }

[groups.all]
daemons = ["db", "web"]
`

const ok = (r: { text: string } | { problem: unknown }): string => {
  if (!("text" in r)) throw new Error(`refused: ${JSON.stringify(r.problem)}`)
  return r.text
}

describe("daemon tables", () => {
  it("offer --cron-retrigger the values of the Schema", () => {
    expect([...RETRIGGER_CHOICES]).toEqual([...RETRIGGERS])
  })

  it("escapes quotes, backslashes, newlines and control characters in strings", () => {
    expect(tomlString('say "hi"\\n\nnext\ttab\u0001')).toBe('"say \\"hi\\"\\\\n\\nnext\\ttab\\u0001"')
  })

  it("quotes an id with a dot and writes hooks in their own table", () => {
    expect(
      daemonTables(
        {
          id: "my.app",
          keys: [
            ["run", "x"],
            ["port", { expect: [3000], bump: true }],
          ],
          hooks: [["on_ready", "y"]],
        },
        "\n",
      ),
    ).toBe(
      '[daemons."my.app"]\nrun = "x"\nport = { expect = [3000], bump = true }\n\n[daemons."my.app".hooks]\non_ready = "y"\n',
    )
  })
})

describe("declared daemons", () => {
  it("finds tables, dotted keys and inline tables", () => {
    expect(declaredIds(FIXTURE)).toEqual(["db", "web", "worker", "cache", "inline"])
    expect(findDaemon(FIXTURE, "web")).toBe(17)
    expect(findDaemon(FIXTURE, "nope")).toBeUndefined()
  })
})

describe("addDaemon", () => {
  const api = { id: "api", keys: [["run", 'echo "a\\b"\nexec sleep 1']] as const, hooks: [] }

  it("appends the table after one blank line and leaves every other byte as it was", () => {
    const out = ok(addDaemon(FIXTURE, api))
    expect(out.startsWith(FIXTURE)).toBe(true)
    expect(out.slice(FIXTURE.length)).toBe('\n[daemons.api]\nrun = "echo \\"a\\\\b\\"\\nexec sleep 1"\n')
  })

  it("adds the missing final newline, keeps CRLF, and writes a new file without a blank first line", () => {
    expect(ok(addDaemon("a = 1", api))).toBe(`a = 1\n\n${daemonTables(api, "\n")}`)
    expect(ok(addDaemon("a = 1\r\n", api))).toBe(`a = 1\r\n\r\n${daemonTables(api, "\r\n")}`)
    expect(ok(addDaemon("", api))).toBe(daemonTables(api, "\n"))
  })

  it("refuses an id the file declares, in any form, naming the line", () => {
    for (const [id, line] of [
      ["web", 17],
      ["db", 9],
      ["cache", 32],
      ["inline", 33],
    ] as const) {
      const r = addDaemon(FIXTURE, { id, keys: [["run", "x"]], hooks: [] })
      expect(r).toMatchObject({ problem: { line, message: expect.stringContaining("daemons remove") } })
    }
  })

  it("refuses a file that is not TOML", () => {
    expect(addDaemon("[daemons.x\nrun = 1", api)).toMatchObject({
      problem: { message: expect.stringContaining("TOML") },
    })
  })
})

describe("removeDaemon", () => {
  it("removes the table, its sub-tables and the comments directly above, and nothing else", () => {
    expect(ok(removeDaemon(FIXTURE, "web"))).toBe(
      FIXTURE.replace(
        `# The web server: listens on 3000.
[daemons.web]
run = "exec node server.js"
depends = [
  "db",   # first
]
# a note inside web, after its keys

[daemons.web.hooks]
on_ready = "echo up"
`,
        "",
      ),
    )
  })

  it("removes a daemon with an env sub-table, keeping the blank lines before it", () => {
    expect(ok(removeDaemon(FIXTURE, "db"))).toBe(
      FIXTURE.replace(
        `# The database.
[daemons.db]
run = 'exec postgres -D ./data'   # literal string
ready_port=5432

[daemons.db.env]
PGDATA = "./data"

`,
        "",
      ),
    )
  })

  it("removes dotted keys and inline tables under [daemons], leaving the table", () => {
    expect(ok(removeDaemon(FIXTURE, "cache"))).toBe(FIXTURE.replace('cache.run = "exec redis-server"\n', ""))
    expect(ok(removeDaemon(FIXTURE, "inline"))).toBe(
      FIXTURE.replace('inline = { run = "exec ./inline" }\n', ""),
    )
  })

  it("keeps a table's comment when it is the next table's (worker after web)", () => {
    expect(ok(removeDaemon(FIXTURE, "worker"))).toBe(
      FIXTURE.replace('# worker\'s own comment\n[daemons.worker]\nrun = "exec ./worker"\n\n', ""),
    )
  })

  it("gives back the file as it was after an add", () => {
    const added = ok(addDaemon(FIXTURE, { id: "api", keys: [["run", "x"]], hooks: [["on_exit", "y"]] }))
    expect(ok(removeDaemon(added, "api"))).toBe(FIXTURE)
  })

  it("finds and removes a quoted id (a dot in the name) and its sub-tables", () => {
    const added = ok(addDaemon(FIXTURE, { id: "my.app", keys: [["run", "x"]], hooks: [["on_stop", "y"]] }))
    expect(declaredIds(added)).toContain("my.app")
    expect(addDaemon(added, { id: "my.app", keys: [["run", "x"]], hooks: [] })).toMatchObject({
      problem: { kind: "exists" },
    })
    expect(ok(removeDaemon(added, "my.app"))).toBe(FIXTURE)
  })

  it("keeps the #:schema line above a first daemon", () => {
    expect(ok(removeDaemon('#:schema x.json\n[daemons.a]\nrun = "x"\n\n[daemons.b]\nrun = "y"\n', "a"))).toBe(
      '#:schema x.json\n[daemons.b]\nrun = "y"\n',
    )
  })

  it("refuses an id the file does not declare", () => {
    expect(removeDaemon(FIXTURE, "nope")).toMatchObject({
      problem: { message: expect.stringContaining("not declared") },
    })
  })
})
