// The layering of src/ (docs/architecture.md): each top folder is a layer; a layer may import
// only layers on a lower level, never one on its own level nor one above. Levels, bottom first:
//
//   domain                                   Schema classes and pure helpers; imports nothing of ours
//   usage shell terminal process state events  leaf libraries and services over domain only
//   logs config boot                         the log store and the config files (over state);
//                                            boot files (over process)
//   registry                                 known projects and their live configuration
//   supervisor                               per-daemon lifecycle
//   control                                  the one handler of every command
//   automation proxy                         background fibers and the proxy: they send commands
//                                            to control, and never use each other
//   api                                      the HTTP API over control
//   web mcp metrics export import client     front-ends and formats over the API
//   host                                     the supervisor process: the composition root
//   quick                                    the Effect-free fast path (starts the host)
//   cli                                      the full CLI: may fall back on quick's pieces,
//                                            quick never imports cli
//   tui                                      the dashboard: a program the CLI starts, on the
//                                            CLI's connection to the supervisor
//   main.ts host-entry.ts testing            the entry files and the fakes only tests use
//
// Folders on one level may not import each other. A new folder fails this test until it is
// given a level here (and in docs/architecture.md). Every import counts: static, type-only,
// `export ... from` and dynamic `import()`. Besides, no two files of src/ import each other,
// directly or through others (a cycle of files is named with each import's file and line).
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { describeCycle, fileCycles, importsOf, layeringProblems, readSources } from "./importGraph.js"
import { commandMembers, supervisorCommandCalls } from "./supervisorCalls.js"

const LEVELS: ReadonlyArray<ReadonlyArray<string>> = [
  ["domain"],
  ["usage", "shell", "terminal", "process", "state", "events"],
  ["logs", "config", "boot"],
  ["registry"],
  ["supervisor"],
  ["control"],
  ["automation", "proxy"],
  ["api"],
  ["web", "mcp", "metrics", "export", "import", "client"],
  ["host"],
  ["quick"],
  ["cli"],
  ["tui"],
  ["main.ts", "host-entry.ts", "testing"],
]

const SRC = fileURLToPath(new URL("../../src", import.meta.url))
const sources = readSources(SRC)

describe("the layering of src/", () => {
  it("has every folder on a level and no import against the order", () => {
    expect(layeringProblems(importsOf(sources), LEVELS)).toEqual([])
  })

  it("has no import cycle among its files", () => {
    expect(fileCycles(importsOf(sources)).map(describeCycle)).toEqual([])
  })

  it("fails on a bad import added to the real sources, naming it", () => {
    const bad = new Map(sources)
    const name = sources.get("domain/Name.ts") ?? ""
    const line = name.split("\n").length + 1
    bad.set("domain/Name.ts", `${name}\nimport { rootCommand } from "../cli/commands.js"\n`)
    expect(layeringProblems(importsOf(bad), LEVELS)).toEqual([
      `src/domain/Name.ts:${line} imports "../cli/commands.js": domain/ lies below cli/ and may not import it`,
    ])
    // cli/commands.ts reaches domain/Name.ts: the added import closes a cycle of files too
    expect(fileCycles(importsOf(bad)).map(describeCycle).join("\n")).toContain(
      `src/domain/Name.ts:${line} "../cli/commands.js"`,
    )
  })
})

describe("one way in: commands reach the Supervisor only through Control", () => {
  // supervisor/ itself, control/ (the one handler) and the fakes tests use
  const allowed = ["supervisor", "control", "testing"]
  const members = commandMembers(sources.get("supervisor/supervisorCommands.ts") ?? "")

  it("knows the Supervisor's commands", () => {
    expect(members).toEqual(
      expect.arrayContaining(["start", "stop", "restartIfRunning", "kill", "stopAll", "detach"]),
    )
    expect(members).toContain("setWatchProblem")
  })

  it("has no call of a Supervisor command outside supervisor/ and control/", () => {
    expect(supervisorCommandCalls(sources, members, allowed)).toEqual([])
  })

  it("fails on a direct call added to the real sources, naming it", () => {
    const bad = new Map(sources)
    const watch = sources.get("automation/watch/Watch.ts") ?? ""
    const line = watch.split("\n").length + 1
    bad.set(
      "automation/watch/Watch.ts",
      `${watch}\nexport const side = (supervisor: SupervisorShape) => supervisor.stopAll\n`,
    )
    expect(supervisorCommandCalls(bad, members, allowed)).toEqual([
      `src/automation/watch/Watch.ts:${line} supervisor.stopAll`,
    ])
  })
})

describe("the import-graph checker", () => {
  const levels = [["domain"], ["automation", "proxy"], ["cli"]]
  const files = new Map([
    [
      "domain/Id.ts",
      [
        "// import { x } from '../cli/main.js' is a comment",
        'const text = "import(\\"../cli/main.js\\")"',
        'import type { Flags } from "../cli/flags.js"',
      ].join("\n"),
    ],
    ["domain/Other.ts", 'export const f = () => import("./Id.js")'],
    ["automation/watch.ts", 'export * from "../proxy/server.js"\nimport { g } from "../domain/Other.js"'],
    ["proxy/server.ts", 'import "../domain/Id.js"'],
    ["cli/flags.ts", 'import { Id } from "../domain/Id.js"\nimport { h } from "../tools/h.js"'],
    ["tools/h.ts", ""],
  ])

  it("names each import against the order, on its own level, and each folder without a level", () => {
    expect(layeringProblems(importsOf(files), levels)).toEqual([
      'src/domain/Id.ts:3 imports "../cli/flags.js": domain/ lies below cli/ and may not import it',
      'src/automation/watch.ts:1 imports "../proxy/server.js": automation/ and proxy/ share a level and may not import each other',
      "src/tools has no place in the layering order: give it a level",
    ])
  })

  it("names a cycle of files with each import's file, line and specifier", () => {
    expect(fileCycles(importsOf(files)).map(describeCycle)).toEqual([
      'import cycle: src/cli/flags.ts:1 "../domain/Id.js" -> src/domain/Id.ts:3 "../cli/flags.js"',
    ])
  })

  it("counts dynamic imports, and finds a cycle through them", () => {
    const dynamic = new Map([
      ["domain/a.ts", 'export const load = () => import("./b.js")'],
      ["domain/b.ts", 'import type { A } from "./a.js"'],
    ])
    expect(fileCycles(importsOf(dynamic)).map(describeCycle)).toEqual([
      'import cycle: src/domain/a.ts:1 "./b.js" -> src/domain/b.ts:1 "./a.js"',
    ])
  })
})
