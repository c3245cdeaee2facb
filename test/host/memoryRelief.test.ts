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

  it("mapSource: a file as a string in its own pages, which evictSource lets go and a read brings back", () => {
    const file = path.join(dir, "source.js")
    const text = "const x = 1;\n".repeat(40000)
    writeFileSync(file, text)
    const script = `
      const fs = require("node:fs")
      const m = { exports: {} }
      process.dlopen(m, ${JSON.stringify(memoryReliefFile)})
      const fd = fs.openSync(${JSON.stringify(file)}, "r")
      const s = m.exports.mapSource(fd)
      fs.closeSync(fd)
      // the mapping's resident kB, from the process's own smaps
      const rss = () => {
        const smaps = fs.readFileSync("/proc/self/smaps", "utf8").split(/\\n(?=[0-9a-f]+-[0-9a-f]+ )/)
        const entry = smaps.find((e) => e.split("\\n")[0].endsWith(${JSON.stringify(file)}))
        return Number(/\\nRss:\\s+(\\d+) kB/.exec(entry)[1])
      }
      const same = s === fs.readFileSync(${JSON.stringify(file)}, "latin1")
      const before = rss()
      const advised = m.exports.evictSource()
      const after = rss()
      let again
      try { m.exports.mapSource(0) } catch (e) { again = e.message }
      console.log(JSON.stringify({ same, before, advised, after, sameAfter: s === fs.readFileSync(${JSON.stringify(file)}, "latin1"), again }))
    `
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" })
    expect(r.status, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {
      same: boolean
      before: number
      advised: number
      after: number
      sameAfter: boolean
      again: string
    }
    expect(out.same).toBe(true)
    expect(out.before).toBeGreaterThan(400)
    expect(out.advised).toBe(text.length)
    expect(out.after).toBe(0)
    // read again from the file
    expect(out.sameAfter).toBe(true)
    // one source only
    expect(out.again).toMatch(/mapSource/)
  })

  it("loads through src/host/memoryRelief.ts; a file that is not it, or none, gives undefined", () => {
    const relief = loadMemoryRelief()
    expect(relief && Object.keys(relief).sort()).toEqual(["evictSource", "reduce", "reduceAll", "trim"])
    expect(loadMemoryRelief(path.join(dir, "missing.node"))).toBeUndefined()
    const notAddon = path.join(dir, "text.node")
    writeFileSync(notAddon, "not a shared object")
    expect(loadMemoryRelief(notAddon)).toBeUndefined()
  })
})
