import { describe, expect, it } from "vitest"
import { generateSdk, planSdk } from "../../../src/usage/sdk/index.js"
import { pythonRuntime } from "../../../src/usage/sdk/python/runtime.js"
import { typeScriptRuntime } from "../../../src/usage/sdk/typescript/runtime.js"
import { edgeSpec } from "./fixtures/edgeSpec.js"
import { fixtureSpec } from "./fixtures/spec.js"

/** The generators' text and naming decisions, without running anything. */

const file = (files: ReadonlyMap<string, string>, name: string): string => {
  const content = files.get(name)
  if (content === undefined) throw new Error(`no ${name} among ${[...files.keys()].join(", ")}`)
  return content
}

const methodsOf = (className: string) => {
  const command = planSdk(edgeSpec).commands.find((plan) => plan.className === className)
  return command?.methods.map((method) => ({ ts: method.tsName, py: method.pyName, alias: method.alias }))
}

describe("generateSdk", () => {
  it("writes a module directory per language", () => {
    expect([...generateSdk(fixtureSpec, "typescript").keys()]).toEqual([
      "index.ts",
      "commands.ts",
      "runtime.ts",
    ])
    expect([...generateSdk(fixtureSpec, "python").keys()]).toEqual([
      "__init__.py",
      "commands.py",
      "_runtime.py",
    ])
  })

  it("is deterministic", () => {
    for (const lang of ["typescript", "python"] as const) {
      expect([...generateSdk(fixtureSpec, lang)]).toEqual([...generateSdk(fixtureSpec, lang)])
    }
  })

  it("embeds the runtime verbatim after the generated-file header", () => {
    expect(file(generateSdk(fixtureSpec, "typescript"), "runtime.ts").endsWith(typeScriptRuntime)).toBe(true)
    expect(file(generateSdk(fixtureSpec, "python"), "_runtime.py").endsWith(pythonRuntime)).toBe(true)
  })

  it("names one class per command from its path, nested commands included", () => {
    expect(planSdk(fixtureSpec).commands.map((plan) => plan.className)).toEqual([
      "FixtureCliCommand",
      "StatusCommand",
      "DaemonsCommand",
      "DaemonsListCommand",
      "DaemonsWatchCommand",
      "FailCommand",
    ])
    const ts = file(generateSdk(fixtureSpec, "typescript"), "commands.ts")
    expect(ts).toContain(
      'export class DaemonsWatchCommand {\n  /** Subcommand path, put on the command line before flags and arguments. */\n  static readonly path: ReadonlyArray<string> = ["daemons", "watch"]',
    )
    expect(ts).toContain('constructor(bin: string = "fixture-cli")')
    const py = file(generateSdk(fixtureSpec, "python"), "commands.py")
    expect(py).toContain("class DaemonsWatchCommand:")
    expect(py).toContain('PATH: Tuple[str, ...] = ("daemons", "watch")')
    expect(py).toContain('def __init__(self, bin: str = "fixture-cli") -> None:')
  })

  it("types flags: booleans, strings, choice unions, repeatable values", () => {
    const ts = file(generateSdk(fixtureSpec, "typescript"), "commands.ts")
    expect(ts).toContain('readonly format?: "text" | "json"')
    expect(ts).toContain("readonly tag?: string | ReadonlyArray<string>")
    expect(ts).toContain("readonly dryRun?: boolean")
    expect(ts).toContain('export type StatusJsonFlags = Omit<StatusFlags, "format">')
    expect(ts).toContain("export type StatusArgs = readonly [name?: string]")
    const py = file(generateSdk(fixtureSpec, "python"), "commands.py")
    expect(py).toContain('level: Literal["low", "high"]')
    expect(py).toContain("tag: Union[str, Sequence[str]]")
    expect(py).toContain("class StatusFlags(StatusJsonFlags, total=False):")
  })

  it("declares exit codes with their descriptions as doc comments", () => {
    const ts = file(generateSdk(fixtureSpec, "typescript"), "commands.ts")
    expect(ts).toContain(
      "export const FailExitCode = {\n  /** Success */\n  Success: 0,\n  /** Daemon not found */\n  DaemonNotFound: 3,",
    )
    expect(ts).toContain("export type FailExitCode = (typeof FailExitCode)[keyof typeof FailExitCode]")
    const py = file(generateSdk(fixtureSpec, "python"), "commands.py")
    expect(py).toContain("class FailExitCode(enum.IntEnum):")
    expect(py).toContain("    #: Daemon not found\n    DAEMON_NOT_FOUND = 3\n")
  })

  it("puts an output's JSON schema in the method's doc comment", () => {
    const ts = file(generateSdk(fixtureSpec, "typescript"), "commands.ts")
    expect(ts).toContain(
      '   * ```json\n   * {\n   *   "$schema": "https://json-schema.org/draft/2020-12/schema",',
    )
    const py = file(generateSdk(fixtureSpec, "python"), "commands.py")
    expect(py).toContain(
      '        ```json\n        {\n          "$schema": "https://json-schema.org/draft/2020-12/schema",',
    )
  })

  it("keeps spec text from ending a comment or docstring early", () => {
    const ts = file(generateSdk(edgeSpec, "typescript"), "commands.ts")
    expect(ts).toContain("a comment end *\\/ and")
    expect(ts).toContain('{"type": "object"} *\\/ """')
    const py = file(generateSdk(edgeSpec, "python"), "commands.py")
    expect(py).toContain('a docstring end \\"\\"\\" and a backslash \\\\.')
  })
})

describe("method naming", () => {
  it("execJson<Name> / execJsonl<Name>, the name dropped when it is the framing, plus bare aliases", () => {
    expect(methodsOf("ReportCommand")).toEqual([
      { ts: "execJson", py: "exec_json", alias: false },
      { ts: "execJsonStatusJson", py: "exec_json_status_json", alias: false },
      { ts: "execJsonlEvents", py: "exec_jsonl_events", alias: false },
      // Only one jsonl output: execJsonl is its alias. Two json outputs: no alias.
      { ts: "execJsonl", py: "exec_jsonl", alias: true },
    ])
  })

  it("gives a default json output without a selector a method that passes no selector", () => {
    expect(methodsOf("EdgeCliCommand2")).toEqual([
      { ts: "execJsonDocument", py: "exec_json_document", alias: false },
      { ts: "execJson", py: "exec_json", alias: true },
    ])
    const command = planSdk(edgeSpec).commands.find((plan) => plan.className === "EdgeCliCommand2")
    expect(command?.methods[0]?.selectorArgv).toEqual([])
  })

  it("leaves text outputs out, and the selector flags out of the output methods' flags", () => {
    const report = planSdk(edgeSpec).commands.find((plan) => plan.className === "ReportCommand")
    expect(report?.methods.map((method) => method.output.name)).not.toContain("yaml")
    expect(report?.selectorFlags.map((flag) => flag.argv)).toEqual(["--format", "--events"])
  })

  it("makes keys valid in both languages and class names unique", () => {
    const report = planSdk(edgeSpec).commands.find((plan) => plan.className === "ReportCommand")
    expect(report?.flags.map((flag) => [flag.argv, flag.tsKey, flag.pyKey])).toEqual([
      ["--from", "from", "from_"],
      ["--class", "class", "class_"],
      ["-V", "V", "V"],
      ["-v", "v", "v"],
      ["--2fa", "2fa", "f_2fa"],
      ["--format", "format", "format"],
      ["--events", "events", "events"],
    ])
    expect(report?.exitCodes.map((code) => [code.tsKey, code.pyKey])).toEqual([
      ["Ok", "OK"],
      ["Exit7", "EXIT_7"],
      ["Ok2", "OK2"],
    ])
    expect(planSdk(edgeSpec).commands.map((plan) => plan.className)).toEqual([
      "EdgeCliCommand",
      "ReportCommand",
      "EdgeCommand",
      "EdgeCliCommand2",
      "OddArgsCommand",
    ])
    const ts = file(generateSdk(edgeSpec, "typescript"), "commands.ts")
    expect(ts).toContain('readonly "2fa"?: boolean')
    expect(ts).toContain("export type ReportArgs = readonly [class_: string, ...files: Array<string>]")
    expect(ts).toContain("export type OddArgsArgs = ReadonlyArray<string>")
  })
})
