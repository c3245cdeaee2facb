import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// The exit status of a process is decided by its entry point: the CLI's commands ask for one
// (`exitWith`, src/cli/output.ts) and src/cli/main.ts applies it; the quick commands answer it and
// the launcher applies it; the supervisor's entry and the dashboard's set their own. No library
// code touches `process.exitCode`, so that a command can run inside another program.
const SRC = fileURLToPath(new URL("../../src", import.meta.url))

/** The entry points: the only files that may set `process.exitCode`. */
const ENTRIES = ["src/cli/main.ts", "src/host-entry.ts", "src/main.ts", "src/tui/main.ts"]

const sources = () =>
  fs
    .readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => ({ file: `src/${f}`, text: fs.readFileSync(nodePath.join(SRC, f), "utf8") }))

/** `file:line: text` of every line of src/ that sets or reads `process.exitCode`, outside `allowed`. */
const exitCodeLines = (
  files: ReadonlyArray<{ file: string; text: string }>,
  allowed: ReadonlyArray<string>,
) =>
  files
    .filter(({ file }) => !allowed.includes(file))
    .flatMap(({ file, text }) =>
      text
        .split("\n")
        .flatMap((line, i) => (/process\.exitCode\b/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )

describe("process.exitCode", () => {
  it("has the sources to check", () => {
    const files = sources().map((s) => s.file)
    expect(files).toEqual(expect.arrayContaining([...ENTRIES, "src/cli/output.ts", "src/quick/start.ts"]))
  })

  it("is set by the entry points only", () => {
    expect(exitCodeLines(sources(), ENTRIES)).toEqual([])
  })

  it("names a file that sets it", () => {
    const planted = { file: "src/cli/output.ts", text: "const a = 1\n  process.exitCode = 2\n" }
    expect(exitCodeLines([planted], ENTRIES)).toEqual(["src/cli/output.ts:2: process.exitCode = 2"])
  })
})
