import { describe, expect, it } from "vitest"
import { markdownDocs } from "../../../src/usage/consume/index.js"
import { cell } from "../../../src/usage/consume/markdown.js"
import type { Spec } from "../../../src/usage/model.js"
import { invalidSchema, spec } from "./fixture.js"

const docs = markdownDocs(spec)
const file = (name: string): string => {
  const content = docs.get(name)
  if (content === undefined) throw new Error(`no ${name} in ${[...docs.keys()].join(", ")}`)
  return content
}

/** The text of one `##` section of a page (up to the next heading of the same or higher level). */
const section = (page: string, heading: string): string => {
  const start = page.indexOf(`${heading}\n`)
  if (start < 0) throw new Error(`no heading ${heading}`)
  const level = heading.split(" ")[0]!
  const rest = page.slice(start + heading.length + 1)
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, "m"))
  return next < 0 ? rest : rest.slice(0, next)
}

describe("markdownDocs", () => {
  it("writes an index and one file per visible top-level command", () => {
    expect([...docs.keys()]).toEqual(["index.md", "status.md", "daemons.md"])
  })

  it("links top-level commands from the index and nested ones by anchor", () => {
    expect(section(file("index.md"), "## Commands")).toContain(
      "| [`status`](status.md) | Show the status of every daemon |",
    )
    expect(file("index.md")).not.toContain("debug")
    const daemons = file("daemons.md")
    expect(daemons).toContain("| [`list`](#demo-daemons-list) | List daemons |")
    expect(daemons).toContain("## `demo daemons list`")
  })

  it("documents usage, description, aliases, arguments and flags", () => {
    const daemons = file("daemons.md")
    expect(daemons.startsWith("# `demo daemons`\n\nManage daemons\n\nAliases: `d`")).toBe(true)
    const stop = section(daemons, "## `demo daemons stop`")
    expect(stop).toContain("```\ndemo daemons stop [FLAGS] <name>...\n```")
    expect(stop).toContain("| `<name>...` | Daemons to stop. Required. Repeatable. |")
    expect(stop).toContain(
      "| `-s, --signal <SIG>` | Signal to send. Choices: `TERM`, `KILL`. Default: `TERM`. |",
    )
    expect(stop).toContain("| `-v, --verbose` | More output; repeat for more. Repeatable. Global. |")
    expect(section(file("index.md"), "## Flags")).toContain("| `--config <PATH>` | Read this config file. |")
  })

  it("lists each command's own output formats with how to select them", () => {
    const list = section(file("daemons.md"), "## `demo daemons list`")
    const formats = section(list, "### Output Formats")
    expect(formats).toContain("| Name | Default | Select | Framing | Media type | Description |")
    expect(formats).toContain("| `text` | yes | `--format text` | text |  | Human-readable table |")
    expect(formats).toContain("| `xml` |  | `--format xml` | text | `application/xml` | An XML document |")
    expect(formats).not.toContain("jsonl")
    expect(list).toContain("Choices: `text`, `json`, `xml`.")
    expect(section(file("status.md"), "## Output Formats")).toContain(
      "| `json` |  | `--json` | json | `application/json` | One JSON document |",
    )
  })

  it("puts a valid schema, pretty-printed, in a collapsible json block", () => {
    const formats = section(file("status.md"), "## Output Formats")
    expect(formats).toContain(
      'Schema of the `json` output:\n\n<details><summary>Schema</summary>\n\n```json\n{\n  "$schema": "https://json-schema.org/draft/2020-12/schema",',
    )
    expect(formats).toContain('  "required": [\n    "daemons"\n  ]\n}\n```\n\n</details>')
  })

  it("keeps an invalid schema verbatim, outside a json fence", () => {
    const formats = section(file("status.md"), "## Output Formats")
    expect(formats).toContain(
      `Schema of the \`jsonl\` output (not valid JSON; shown verbatim):\n\n<details><summary>Schema</summary>\n\n\`\`\`\n${invalidSchema}\n\`\`\``,
    )
  })

  it("has an Exit Status table with | escaped, per command", () => {
    const exit = section(file("index.md"), "## Exit Status")
    expect(exit).toContain("| 1 | Failure \\| see the supervisor log |")
    expect(exit).toContain("| 130 | Interrupted (SIGINT) |")
    const stop = section(file("daemons.md"), "## `demo daemons stop`")
    expect(section(stop, "### Exit Status")).toContain("| 1 | A daemon did not stop |")
  })

  it("escapes | and newlines in cells", () => {
    expect(cell("a | b\nc")).toBe("a \\| b<br>c")
    const multi: Spec = {
      ...spec,
      root: {
        ...spec.root,
        exit_codes: [{ code: 2, description: "usage\nerror | bad flag" }],
        subcommands: [],
      },
    }
    expect(markdownDocs(multi).get("index.md")).toContain("| 2 | usage<br>error \\| bad flag |")
  })

  it("lengthens fences and code spans around backticks", () => {
    const ticks: Spec = {
      ...spec,
      root: {
        ...spec.root,
        outputs: [{ ...spec.root.outputs[1]!, name: "a`b", schema: "```not json" }],
        subcommands: [],
      },
    }
    const page = markdownDocs(ticks).get("index.md")!
    expect(page).toContain("| `` a`b `` |")
    expect(page).toContain("````\n```not json\n````")
  })
})
