import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { parseSpecFile } from "../../../src/usage/index.js"
import { writeSpec } from "../../../src/usage/writer.js"
import { accepts, kdl, rejects } from "./helpers.js"

// The top level of a spec: lib/src/spec/mod.rs (Spec::parse, Spec::parse_file) and
// docs/spec/reference/index.md ("Top-level metadata").

describe("bin and name", () => {
  // mod.rs, Spec::parse: neither node is required; the root command is named by bin, else name.
  it("are optional: a spec of one arg, or of one cmd, is valid", () => {
    expect(accepts(kdl('arg "<name>"')).bin).toBe("")
    expect(accepts(kdl('cmd "x" { flag "--y"; }')).root.subcommands.map((c) => c.name)).toEqual(["x"])
  })

  // mod.rs, Spec::parse_file: "if schema.bin.is_empty() { schema.bin = file.file_name() }".
  it("default to the file's name when the spec is read from a file", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-bin-"))
    const file = nodePath.join(dir, "tool.usage.kdl")
    fs.writeFileSync(file, kdl('arg "<x>"'))
    try {
      expect(Effect.runSync(parseSpecFile(file)).bin).toBe("tool.usage.kdl")
    } finally {
      fs.rmSync(dir, { recursive: true })
    }
  })

  // mod.rs: "bin" sets the bin, and the name when none was given; name alone names the root.
  it("name stands in for bin", () => {
    expect(accepts(kdl('name "tool"')).bin).toBe("tool")
    expect(accepts(kdl('name "Tool"', 'bin "tool"'))).toMatchObject({ name: "Tool", bin: "tool" })
  })
})

describe("metadata nodes", () => {
  // docs/spec/reference/index.md lists each of these; mod.rs reads each with arg(0).ensure_string().
  it("reads every metadata node", () => {
    const spec = accepts(
      kdl(
        'min_usage_version "1.3"',
        'name "My CLI"',
        'bin "mycli"',
        'version "1.0.0"',
        'long_version "1.0.0\\ncommit abc123"',
        'author "nobody"',
        'license "MIT"',
        'repository "https://github.com/me/myproj"',
        'about "some help"',
        'long_about "longer help"',
        'usage "mycli [flags]"',
        'source_code_link_template "https://example.org/{{path}}.rs"',
        'before_help "before"',
        'after_help "after"',
        'before_long_help "before, long"',
        'after_long_help "after, long"',
        'example "mycli --help" header="Getting help" help="Display help" lang="sh"',
      ),
    )
    expect(spec).toMatchObject({
      min_usage_version: "1.3",
      name: "My CLI",
      bin: "mycli",
      version: "1.0.0",
      long_version: "1.0.0\ncommit abc123",
      author: "nobody",
      license: "MIT",
      repository: "https://github.com/me/myproj",
      about: "some help",
      long_about: "longer help",
      usage: "mycli [flags]",
      source_code_link_template: "https://example.org/{{path}}.rs",
    })
    expect(spec.root).toMatchObject({
      before_help: "before",
      after_help: "after",
      before_long_help: "before, long",
      after_long_help: "after, long",
      examples: [{ code: "mycli --help", header: "Getting help", help: "Display help", lang: "sh" }],
    })
  })

  // mod.rs: "about_long" and "before_help_long"/"after_help_long" are other spellings.
  it("takes the other spellings usage accepts", () => {
    const spec = accepts(kdl('bin "x"', 'about_long "a"', 'before_help_long "b"', 'after_help_long "c"'))
    expect(spec.long_about).toBe("a")
    expect(spec.root).toMatchObject({ before_long_help: "b", after_long_help: "c" })
  })

  // mod.rs assigns each node as it comes: a repeated one keeps the later value.
  it("keeps the later value of a repeated node", () => {
    expect(accepts(kdl('bin "x"', 'version "1"', 'version "2"')).version).toBe("2")
  })

  // mod.rs: disable_help, multicall, help_template, ... are read; supervisor keeps them.
  it("keeps top-level switches usage reads and writes them back", () => {
    const spec = accepts(kdl('bin "x"', "disable_help #true", 'help_template "{{about}}"', "term_width 100"))
    expect(spec.kept?.props).toEqual([
      ["disable_help", true],
      ["help_template", "{{about}}"],
      ["term_width", 100],
    ])
    expect(writeSpec(spec)).toContain('disable_help #true\nhelp_template "{{about}}"\nterm_width 100\n')
  })

  // mod.rs: `k => bail_parse!(ctx, ..., "unsupported spec key {k}")`.
  it("rejects a node usage does not know, saying what and where", () => {
    expect(rejects(kdl('bin "x"', 'verison "1"', 'colour "red"'))).toEqual([
      'spec.kdl:2: verison "1": unknown child node "verison" (did you mean version?)',
      'spec.kdl:3: colour "red": unknown child node "colour" (the top level takes flag, use, arg, cmd, example, complete, mount, group, output, select, exit_code, flagset, config, view and its properties as child nodes; see docs/usage-spec.md)',
    ])
  })

  // helpers.rs, ensure_string: "expected string".
  it("rejects a metadata value of the wrong type", () => {
    expect(rejects(kdl('bin "x"', "version 1", 'disable_help "yes"'))).toEqual([
      "spec.kdl:2: version 1: version must be a string, got 1",
      'spec.kdl:3: disable_help "yes": disable_help must be #true or #false, got "yes"',
    ])
  })
})
