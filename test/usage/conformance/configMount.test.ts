import { describe, expect, it } from "vitest"
import { describeCommand, manPage, markdownDocs } from "../../../src/usage/consume/index.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// `config`: lib/src/spec/config.rs (the `prop` node and its keys) and
// docs/spec/reference/config.md (`file`, `default`, `alias`). `mount`: lib/src/spec/mount.rs
// and docs/spec/reference/cmd.md ("Mounting dynamic commands").

describe("config", () => {
  const spec = accepts(
    kdl(
      'bin "mycli"',
      "config {",
      '  file "/etc/mycli.toml"',
      '  file ".mycli.toml" findup=#true',
      '  file ".myclirc" findup=#true format="ini"',
      '  prop "color" default=#true env="MYCLI_COLOR" help="Enable color output" data_type="boolean"',
      '  prop "jobs" default=4 default_note="the CPU count" long_help="How many jobs run at once"',
      '  default "user" "admin"',
      '  alias "user" "username"',
      "}",
    ),
  )

  it("keeps files, keys, defaults and aliases in the model", () => {
    expect(spec.config).toEqual({
      files: [
        { path: "/etc/mycli.toml" },
        { path: ".mycli.toml", findup: true },
        { path: ".myclirc", findup: true, format: "ini" },
      ],
      props: [
        {
          key: "color",
          default: "true",
          env: "MYCLI_COLOR",
          help: "Enable color output",
          data_type: "boolean",
        },
        { key: "jobs", default: "4", default_note: "the CPU count", long_help: "How many jobs run at once" },
      ],
      defaults: [{ key: "user", value: "admin" }],
      aliases: [{ key: "user", alias: "username" }],
    })
  })

  it("shows it in the docs, the man page and describe", () => {
    const index = markdownDocs(spec).get("index.md")!
    expect(index).toContain("## Configuration")
    expect(index).toContain(
      "Read from, in order: `/etc/mycli.toml`, `.mycli.toml` (searched upward), `.myclirc` (searched upward) (ini).",
    )
    expect(index).toContain(
      "| `color` | Enable color output. Type: boolean. Environment: `MYCLI_COLOR`. Default: `true`. |",
    )
    expect(index).toContain("| `user` | Default: `admin`. |")
    expect(manPage(spec)).toContain(".SH FILES")
    expect(manPage(spec)).toContain(".SH ENVIRONMENT")
    const root = describeCommand(spec, [])
    expect(root.ok && root.command.config?.files.map((f) => f.path)).toEqual([
      "/etc/mycli.toml",
      ".mycli.toml",
      ".myclirc",
    ])
  })

  // config.rs: "unsupported config key {k}", "unsupported config prop key {k}".
  it("rejects what config does not take", () => {
    expect(rejects(kdl('bin "x"', "config {", '  prop "a" colour="red"', '  setting "b"', "}"))).toEqual([
      'spec.kdl:3: config: prop "a": unknown property colour="red" (not a property of a config prop in the usage language; see docs/usage-spec.md)',
      'spec.kdl:4: config: unknown child node "setting" (config takes source, file, prop, default and alias)',
    ])
  })
})

describe("mount", () => {
  const spec = accepts(
    kdl(
      'bin "mycli"',
      'cmd "mount-usage-tasks" hide=#true',
      'cmd "run" { mount run="mycli mount-usage-tasks"; }',
    ),
  )

  it("keeps the command in the model and shows it in the docs and describe", () => {
    expect(at(spec, "run").mounts).toEqual([{ run: "mycli mount-usage-tasks" }])
    expect(markdownDocs(spec).get("run.md")).toContain(
      "More subcommands are read at run time from the usage spec these commands print: `mycli mount-usage-tasks`.",
    )
    const run = describeCommand(spec, ["run"])
    expect(run.ok && run.command.mounts).toEqual(["mycli mount-usage-tasks"])
  })

  // mount.rs: "mount run is required", "unsupported mount key {k}", "unsupported mount value key {k}".
  it("needs run, and takes nothing else", () => {
    expect(rejects(kdl('bin "x"', "mount", 'mount cmd="x"', "mount { nested #null; }"))).toEqual([
      'spec.kdl:2: x: mount: mount needs the command to run (mount run="mycli mount-usage")',
      'spec.kdl:3: x: mount: unknown property cmd="x" (known: run, overrides_default)',
      'spec.kdl:3: x: mount: mount needs the command to run (mount run="mycli mount-usage")',
      'spec.kdl:4: x: mount: unknown child node "nested" (mount takes run and overrides_default)',
      'spec.kdl:4: x: mount: mount needs the command to run (mount run="mycli mount-usage")',
    ])
  })
})
