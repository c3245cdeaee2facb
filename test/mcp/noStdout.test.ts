import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// The MCP server answers on stdout: only its transport (src/mcp/server.ts, `protocolOut`) may
// write there, and nothing in it may set the process's exit status, as if it ran CLI commands.
const MCP = fileURLToPath(new URL("../../src/mcp", import.meta.url))

const sources = () =>
  fs
    .readdirSync(MCP, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: `src/mcp/${f}`, text: fs.readFileSync(nodePath.join(MCP, f), "utf8") }))

/** `file:line: text` of every line of src/mcp that matches `pattern`. */
const linesMatching = (pattern: RegExp) =>
  sources().flatMap(({ file, text }) =>
    text.split("\n").flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  )

describe("src/mcp", () => {
  it("has its sources to check", () => {
    expect(sources().map((s) => s.file)).toEqual(
      expect.arrayContaining(["src/mcp/index.ts", "src/mcp/server.ts"]),
    )
  })

  it("never writes to process.stdout nor sets process.exitCode, and captures no command output", () => {
    expect(
      linesMatching(/process\.stdout|process\.exitCode|\bexitCode\b|\bcapture\b|Command\.run\b/),
    ).toEqual([])
  })

  it("does not run CLI commands: it imports nothing of cli/ and no @effect/cli", () => {
    expect(linesMatching(/from "(\.\.\/cli\/|@effect\/cli)/)).toEqual([])
  })
})
