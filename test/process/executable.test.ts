import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { resolveExecutable } from "../../src/process/executable.js"

const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-exec-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const dir = (name: string) => {
  const d = nodePath.join(root, name)
  fs.mkdirSync(d, { recursive: true })
  return d
}
const file = (d: string, name: string, mode: number) => {
  const p = nodePath.join(d, name)
  fs.writeFileSync(p, "#!/bin/sh\n")
  fs.chmodSync(p, mode)
  return p
}

describe("resolveExecutable", () => {
  it("finds the first executable file along PATH, skipping non-executable files and directories", () => {
    const a = dir("a")
    const b = dir("b")
    const c = dir("c")
    file(a, "tool", 0o644) // not executable
    fs.mkdirSync(nodePath.join(b, "tool")) // a directory
    const good = file(c, "tool", 0o755)
    expect(resolveExecutable("tool", [a, b, c].join(":"))).toBe(good)
  })

  it("leaves paths, unknown names and relative PATH entries (the child's directory decides) to execvp", () => {
    const d = dir("d")
    file(d, "here", 0o755)
    expect(resolveExecutable("./here", d)).toBe("./here")
    expect(resolveExecutable("/bin/sh", d)).toBe("/bin/sh")
    expect(resolveExecutable("no-such-tool-anywhere", d)).toBe("no-such-tool-anywhere")
    expect(resolveExecutable("here", `:${d}`)).toBe("here")
    expect(resolveExecutable("here", `node_modules/.bin:${d}`)).toBe("here")
    expect(resolveExecutable("here", `.:${d}`)).toBe("here")
    // found before the relative entry: that one is what execvp runs too
    expect(resolveExecutable("here", `${d}:node_modules/.bin`)).toBe(nodePath.join(d, "here"))
  })

  it("finds a program installed earlier on PATH once its result is older than a burst", async () => {
    const late = dir("late")
    const early = dir("early")
    const pathEnv = `${early}:${late}`
    const old = file(late, "tool", 0o755)
    expect(resolveExecutable("tool", pathEnv)).toBe(old)
    const installed = file(early, "tool", 0o755)
    expect(resolveExecutable("tool", pathEnv)).toBe(old) // within a start: kept
    await new Promise((r) => setTimeout(r, 2100))
    expect(resolveExecutable("tool", pathEnv)).toBe(installed)
  })

  it("forgets a result whose file is gone, and finds the next one", () => {
    const e = dir("e")
    const f = dir("f")
    const first = file(e, "moving", 0o755)
    const second = file(f, "moving", 0o755)
    const path = `${e}:${f}`
    expect(resolveExecutable("moving", path)).toBe(first)
    fs.rmSync(first)
    expect(resolveExecutable("moving", path)).toBe(second)
  })

  it("without PATH, looks where execvp does by default", () => {
    expect(resolveExecutable("sh", undefined)).toMatch(/^\/(usr\/)?bin\/sh$/)
  })
})
