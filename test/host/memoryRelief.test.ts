/**
 * dist/memory-relief.node (src/host/memoryRelief.cc, built by `npm run build`): V8's collections in
 * its memory-reducing mode and glibc's malloc_trim, loaded by src/host/memoryRelief.ts. Each call
 * runs in a `node --trace-gc` of its own, which names the kind of every collection it makes.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadMemoryRelief } from "../../src/host/memoryRelief.js"
import { memoryReliefFile } from "../../src/host/memoryReliefFile.js"

const dir = mkdtempSync(path.join(tmpdir(), "memory-relief-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `call` of the addon in a fresh `node --trace-gc`, after 20 MiB of garbage left in the old generation. */
const traced = (call: string) => {
  const script = `
    const m = { exports: {} }
    process.dlopen(m, ${JSON.stringify(memoryReliefFile)})
    let keep = []
    for (let i = 0; i < 200000; i++) keep.push({ i, s: "x" + i })
    globalThis.gc()
    keep = null
    const before = process.memoryUsage().heapUsed
    console.log("CALL")
    const out = m.exports.${call}()
    console.log("END", JSON.stringify({ out, before, after: process.memoryUsage().heapUsed }))
  `
  const r = spawnSync(process.execPath, ["--expose-gc", "--trace-gc", "-e", script], { encoding: "utf8" })
  expect(r.status, r.stderr).toBe(0)
  const during = r.stdout.slice(r.stdout.indexOf("CALL"), r.stdout.indexOf("END"))
  const end = JSON.parse(r.stdout.slice(r.stdout.indexOf("END") + 4)) as {
    out: unknown
    before: number
    after: number
  }
  return { during, ...end }
}

describe("dist/memory-relief.node", () => {
  it("is built (npm run build, with the machine's C++ compiler and Node's headers)", () => {
    expect(existsSync(memoryReliefFile)).toBe(true)
  })

  it("reduce: one full collection in V8's memory-reducing mode, the garbage gone", () => {
    const r = traced("reduce")
    expect(r.during.match(/Mark-Compact \(reduce\)[^\n]*memory pressure/g)).toHaveLength(1)
    expect(r.before - r.after).toBeGreaterThan(10 * 1024 * 1024)
  })

  it("reduceAll: such collections until one frees nothing more", () => {
    const r = traced("reduceAll")
    expect(
      r.during.match(/Mark-Compact \(reduce\)[^\n]*low memory notification/g)?.length,
    ).toBeGreaterThanOrEqual(2)
    expect(r.before - r.after).toBeGreaterThan(10 * 1024 * 1024)
  })

  it("trim: malloc's free pages back, and no collection", () => {
    const r = traced("trim")
    expect(typeof r.out).toBe("boolean")
    expect(r.during).not.toMatch(/Mark-Compact|Scavenge/)
  })

  it("loads through src/host/memoryRelief.ts; a file that is not it, or none, gives undefined", () => {
    const relief = loadMemoryRelief()
    expect(relief && Object.keys(relief).sort()).toEqual(["reduce", "reduceAll", "trim"])
    expect(loadMemoryRelief(path.join(dir, "missing.node"))).toBeUndefined()
    const notAddon = path.join(dir, "text.node")
    writeFileSync(notAddon, "not a shared object")
    expect(loadMemoryRelief(notAddon)).toBeUndefined()
  })
})
