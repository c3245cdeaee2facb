import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { writeExport } from "../../src/export/write.js"

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "supervisor-export-write-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const files = [
  { path: "a.service", content: "A\n" },
  { path: "b.service", content: "B\n" },
]

describe("writeExport (--out DIR)", () => {
  it("creates the directory and writes every file, leaving no temporary file", async () => {
    const out = join(dir, "units")
    const written = await Effect.runPromise(writeExport(out, files, false))
    expect(written).toEqual([join(out, "a.service"), join(out, "b.service")])
    expect(readFileSync(join(out, "b.service"), "utf8")).toBe("B\n")
    expect(readdirSync(out).sort()).toEqual(["a.service", "b.service"])
  })

  it("refuses to replace a file without force, and then writes nothing at all", async () => {
    writeFileSync(join(dir, "b.service"), "mine\n")
    const r = await Effect.runPromise(Effect.either(writeExport(dir, files, false)))
    expect(Either.isLeft(r) && r.left._tag === "ExportWouldOverwrite" && r.left.existing).toEqual([
      join(dir, "b.service"),
    ])
    expect(existsSync(join(dir, "a.service"))).toBe(false)
    expect(readFileSync(join(dir, "b.service"), "utf8")).toBe("mine\n")
  })

  it("replaces the files with force", async () => {
    writeFileSync(join(dir, "b.service"), "mine\n")
    await Effect.runPromise(writeExport(dir, files, true))
    expect(readFileSync(join(dir, "b.service"), "utf8")).toBe("B\n")
  })
})
