import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateSdk } from "../../../src/usage/sdk/index.js"
import { edgeSpec } from "./fixtures/edgeSpec.js"
import { fixtureSpec, STATUS_ARGV } from "./fixtures/spec.js"
import {
  fixturesDir,
  installFixtureCli,
  makeTempDir,
  removeDir,
  run,
  tsc,
  writeFiles,
  writeTsconfig,
} from "./helpers.js"

/**
 * The generated TypeScript SDK compiled with `tsc --strict` and used, compiled, against the
 * fixture CLI: a caller program (fixtures/consumer.ts.in) type-checks the SDK from outside and
 * reports what it observed at run time.
 */

let dir = ""

beforeAll(() => {
  dir = makeTempDir("ts")
})

afterAll(() => removeDir(dir))

describe("generated TypeScript SDK", () => {
  it("compiles with the baseline strict settings, as CommonJS (no package.json)", {
    timeout: 60_000,
  }, async () => {
    const project = path.join(dir, "baseline")
    writeFiles(path.join(project, "fixture"), generateSdk(fixtureSpec, "typescript"))
    writeFiles(path.join(project, "edge"), generateSdk(edgeSpec, "typescript"))
    writeTsconfig(project, ["fixture/*.ts", "edge/*.ts"], { outDir: "out" })
    const result = await tsc(project)
    expect(result.stdout + result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(fs.existsSync(path.join(project, "out/fixture/commands.js"))).toBe(true)
  })

  describe("used by a compiled program, as ES modules, under the strictest settings", () => {
    let report: Record<string, unknown> = {}

    beforeAll(async () => {
      const project = path.join(dir, "consumer")
      writeFiles(path.join(project, "sdk"), generateSdk(fixtureSpec, "typescript"))
      fs.copyFileSync(path.join(fixturesDir, "consumer.ts.in"), path.join(project, "main.ts"))
      fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ type: "module" }))
      writeTsconfig(project, ["sdk/*.ts", "main.ts"], {
        outDir: "out",
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noUnusedLocals: true,
        noUnusedParameters: true,
        noImplicitOverride: true,
        noImplicitReturns: true,
        verbatimModuleSyntax: true,
      })
      const compiled = await tsc(project)
      expect(compiled.stdout + compiled.stderr).toBe("")
      expect(compiled.code).toBe(0)
      const cli = installFixtureCli(project)
      const ran = await run(process.execPath, [path.join(project, "out/main.js"), cli, project])
      expect(ran.stderr).toBe("")
      expect(ran.code).toBe(0)
      report = JSON.parse(ran.stdout) as Record<string, unknown>
    }, 60_000)

    it("execJson returns the parsed JSON, the method passing the selector flag itself", () => {
      expect(report.json).toEqual({
        exitCode: 0,
        value: {
          ok: true,
          argv: STATUS_ARGV,
        },
      })
      expect(report.list).toEqual([{ name: "web" }, { name: "db" }])
    })

    it("execJson gives null for empty stdout", () => {
      expect(report.empty).toEqual({ exitCode: 0, value: null, stdout: "" })
    })

    it("exec is the raw method: the caller's flags as given, stdout as text", () => {
      expect(report.raw).toEqual({ exitCode: 0, stdout: "all good\n" })
    })

    it("returns a non-zero exit instead of throwing, with the exit-code constants to compare it to", () => {
      expect(report.fail).toEqual({
        exitCode: 3,
        value: { error: "not found", argv: ["fail", "--json", "web"] },
        stderr: "daemon not found\n",
        isDaemonNotFound: true,
      })
      expect(report.garbage).toEqual({ exitCode: 3, value: null, stdout: "this is not JSON\n" })
    })

    it("execJsonl streams lines as they arrive, and breaking out kills the CLI", () => {
      expect(report.stream).toEqual({
        seen: [1, 2],
        aliveAtFirstLine: true,
        pidMatches: true,
        aliveAfterBreak: false,
        exit: { exitCode: 143, signal: "SIGTERM", stderr: "" },
      })
      expect(report.stopped).toEqual({ aliveAfterStop: false, done: true })
    })

    it("execJsonl ends with the CLI and reports its exit status", () => {
      expect(report.finite).toEqual({ all: [1, 2, 3], exit: { exitCode: 4, signal: null, stderr: "" } })
    })

    it("rejects when the binary cannot be started", () => {
      expect(report.missing).toBe("ENOENT")
    })
  })
})
