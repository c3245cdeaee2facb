import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateSdk } from "../../../src/usage/sdk/index.js"
import { edgeSpec } from "./fixtures/edgeSpec.js"
import { fixtureSpec, STATUS_ARGV } from "./fixtures/spec.js"
import { fixturesDir, installFixtureCli, makeTempDir, removeDir, run, writeFiles } from "./helpers.js"

/**
 * The generated Python SDK run under python3 against the fixture CLI: a caller program
 * (fixtures/consumer.py) reports what it observed, and the tests assert on the report.
 */

let dir = ""
let report: Record<string, unknown> = {}

beforeAll(async () => {
  dir = makeTempDir("py")
  writeFiles(path.join(dir, "fixture_sdk"), generateSdk(fixtureSpec, "python"))
  const cli = installFixtureCli(dir)
  const ran = await run("python3", [path.join(fixturesDir, "consumer.py"), dir, cli, dir])
  expect(ran.stderr).toBe("")
  expect(ran.code).toBe(0)
  report = JSON.parse(ran.stdout) as Record<string, unknown>
}, 60_000)

afterAll(() => removeDir(dir))

describe("generated Python SDK", () => {
  it("exec_json returns the parsed JSON, the method passing the selector flag itself", () => {
    expect(report.json).toEqual({
      exit_code: 0,
      value: {
        ok: true,
        argv: STATUS_ARGV,
      },
    })
    expect(report.list).toEqual([{ name: "web" }, { name: "db" }])
  })

  it("exec_json gives None for empty stdout", () => {
    expect(report.empty).toEqual({ exit_code: 0, value: null, stdout: "" })
  })

  it("exec is the raw method and rejects unknown flags", () => {
    expect(report.raw).toEqual({ exit_code: 0, stdout: "all good\n" })
    expect(report.unknown_flag).toBe("TypeError")
  })

  it("returns a non-zero exit instead of raising, with an IntEnum to compare it to", () => {
    expect(report.fail).toEqual({
      exit_code: 3,
      value: { error: "not found", argv: ["fail", "--json", "web"] },
      stderr: "daemon not found\n",
      is_daemon_not_found: true,
      enum_value: 3,
    })
    expect(report.garbage).toEqual({ exit_code: 3, value: null, stdout: "this is not JSON\n" })
  })

  it("exec_jsonl streams lines as they arrive; break, close() and with kill the CLI", () => {
    expect(report.break).toEqual({ seen: [1, 2], alive_at_first_line: true, alive_after_break: false })
    expect(report.close).toEqual({
      seen: [1, 2],
      alive_before_close: true,
      alive_after_close: false,
      exit_code: 143,
      signal: 15,
    })
    expect(report.with).toEqual({ alive_after_with: false })
  })

  it("exec_jsonl ends with the CLI and reports its exit status", () => {
    expect(report.finite).toEqual({ all: [1, 2, 3], exit_code: 4 })
  })

  it("an SDK of awkward names imports, with keyword-safe keys and every method", async () => {
    writeFiles(path.join(dir, "edge_sdk"), generateSdk(edgeSpec, "python"))
    const script = [
      "import json, sys, typing",
      "sys.path.insert(0, sys.argv[1])",
      "import edge_sdk as sdk",
      "print(json.dumps({",
      "  'flags': sorted(typing.get_type_hints(sdk.ReportFlags)),",
      "  'json_flags': sorted(typing.get_type_hints(sdk.ReportJsonFlags)),",
      "  'methods': sorted(m for m in dir(sdk.ReportCommand) if m.startswith('exec')),",
      "  'collision': sorted(m for m in dir(sdk.EdgeCliCommand2) if m.startswith('exec')),",
      "  'exit_codes': {m.name: m.value for m in sdk.ReportExitCode},",
      "}))",
    ].join("\n")
    const ran = await run("python3", ["-c", script, dir])
    expect(ran.stderr).toBe("")
    expect(JSON.parse(ran.stdout)).toEqual({
      flags: ["V", "class_", "events", "f_2fa", "format", "from_", "v"],
      json_flags: ["V", "class_", "f_2fa", "from_", "v"],
      methods: ["exec", "exec_json", "exec_json_status_json", "exec_jsonl", "exec_jsonl_events"],
      collision: ["exec", "exec_json", "exec_json_document"],
      exit_codes: { OK: 0, EXIT_7: 7, OK2: 8 },
    })
  })
})
