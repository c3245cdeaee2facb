import * as fs from "node:fs"
import * as nodePath from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { completionScript } from "../../../src/usage/consume/index.js"
import { bashCompleteWith, emptyDir, fishCompleteWith, zshCompleteWith, zshDump } from "../consume/shells.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// `complete`: lib/src/spec/complete.rs (SpecComplete::parse, parse_inline and its tests) and
// docs/spec/reference/complete.md (descriptions: "split on ':' ... ':' can be escaped with a
// backslash"; tera variables words, CURRENT, PREV).

describe("complete nodes", () => {
  // complete.rs: the name is lower-cased; run, type and delegate exclude each other.
  it("reads run, type, delegate and descriptions, at the top level and in a command", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'complete "Plugin" run="x plugins ls" descriptions=#true',
        'cmd "c" { complete "file" type="file"; complete "command" delegate="terraform -chdir=infra"; }',
      ),
    )
    expect(spec.root.complete).toEqual([{ name: "plugin", run: "x plugins ls", descriptions: true }])
    expect(at(spec, "c").complete).toEqual([
      { name: "plugin", run: "x plugins ls", descriptions: true },
      { name: "file", type: "file", descriptions: false },
      { name: "command", delegate: "terraform -chdir=infra", descriptions: false },
    ])
  })

  // complete.rs tests delegate_excludes_run_and_type and delegate_must_be_a_command_line.
  it("rejects two ways to complete at once, and a delegate that is not a command line", () => {
    expect(
      rejects(
        kdl(
          'bin "x"',
          'complete "c" run="ls" type="file"',
          'complete "d" delegate=""',
          `complete "e" delegate="git 'oops"`,
        ),
      ),
    ).toEqual([
      'spec.kdl:2: x: complete "c": can set only one of run, type or delegate (this one sets run and type)',
      'spec.kdl:3: x: complete "d": delegate names no command',
      `spec.kdl:4: x: complete "e": delegate is not a command line: unclosed '`,
    ])
  })

  // complete.rs: `k => bail_parse!(..., "unsupported complete key {k}")`.
  it("rejects an unknown property", () => {
    expect(rejects(kdl('bin "x"', 'complete "c" command="ls"'))).toEqual([
      'spec.kdl:2: x: complete "c": unknown property command="ls" (known: run, type, delegate, descriptions)',
    ])
  })
})

describe("dynamic completion in the shells", () => {
  const spec = accepts(
    kdl(
      'bin "demo"',
      `complete "plugin" run=#"printf 'node:JavaScript\\nruby\\\\:2:Ruby, two\\n'"# descriptions=#true`,
      'cmd "install" {',
      '  arg "<plugin>"',
      '  flag "--dir <dir>"',
      '  flag "--from <source>"',
      `  complete "source" run=#"printf 'git\\nhttp\\n'"#`,
      "}",
      'cmd "controllers" {',
      '  arg "<module>"',
      '  arg "<controller>" { complete run="echo {{words[PREV]}}-ctl"; }',
      "}",
    ),
  )
  const cwd = fs.mkdtempSync(nodePath.join(emptyDir, "dirs-"))
  fs.mkdirSync(nodePath.join(cwd, "lib"))
  fs.writeFileSync(nodePath.join(cwd, "notes.txt"), "")

  it("bash offers the command's values (without descriptions), per argument and flag value", () => {
    const bash = completionScript(spec, "bash")
    expect(bashCompleteWith(bash, ["demo", "install", ""])).toEqual(["node", "ruby:2"])
    expect(bashCompleteWith(bash, ["demo", "install", "--from", ""])).toEqual(["git", "http"])
    expect(bashCompleteWith(bash, ["demo", "controllers", "admin", ""])).toEqual(["admin-ctl"])
    expect(bashCompleteWith(bash, ["demo", "install", "--dir", ""], { cwd })).toEqual(["lib"])
  })

  beforeAll(zshDump, 120_000)

  it("zsh offers them with their descriptions", async () => {
    const zsh = completionScript(spec, "zsh")
    expect(await zshCompleteWith(zsh, "demo install ")).toEqual(["node\tJavaScript", "ruby:2\tRuby, two"])
    expect(await zshCompleteWith(zsh, "demo install --from ")).toEqual(["git", "http"])
    expect(await zshCompleteWith(zsh, "demo controllers admin ")).toEqual(["admin-ctl"])
  })

  it("fish offers them with their descriptions", async () => {
    const fish = completionScript(spec, "fish")
    expect(await fishCompleteWith(fish, "demo install ")).toEqual(["node\tJavaScript", "ruby:2\tRuby, two"])
    expect(await fishCompleteWith(fish, "demo install --from ")).toEqual(["git", "http"])
    expect(await fishCompleteWith(fish, "demo controllers admin ")).toEqual(["admin-ctl"])
    expect(await fishCompleteWith(fish, "demo install --dir ", cwd)).toEqual(["lib/\tDirectory"])
  })
})
