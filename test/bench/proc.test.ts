import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
// @ts-expect-error: a benchmark helper in plain JavaScript, without types
import { processRssByMapping, rssByMapping } from "../../bench/proc.mjs"

interface ByMapping {
  readonly exe: number
  readonly files: number
  readonly mallocHeap: number
  readonly v8Pages: number
  readonly v8PagesMapped: number
  readonly otherAnon: number
  readonly stack: number
  readonly total: number
}
const byMapping = rssByMapping as (smaps: string, exe: string) => ByMapping
const ofProcess = processRssByMapping as (pid: number) => ByMapping | undefined

/** One mapping of /proc/<pid>/smaps: its head line and the fields the parser reads. */
const mapping = (from: number, kib: number, name: string, rss: number) =>
  [
    `${from.toString(16)}-${(from + kib * 1024).toString(16)} rw-p 00000000 00:00 0          ${name}`,
    `Size:             ${kib} kB`,
    `Rss:              ${rss} kB`,
    "Pss:              0 kB",
    "VmFlags: rd wr mr mw me ac sd",
  ].join("\n")

describe("rssByMapping (bench/proc.mjs)", () => {
  it("sorts each mapping's Rss by kind: the executable, files, malloc's heap, 256 KiB anonymous pages, other anonymous, the stack", () => {
    const smaps = [
      mapping(0x400000, 4096, "/usr/bin/node", 3000),
      mapping(0x1400000, 512, "/usr/bin/node", 100),
      mapping(0x2000000, 1024, "[heap]", 900),
      mapping(0x10000000, 256, "", 200),
      mapping(0x10040000, 256, "", 56),
      mapping(0x20000000, 2048, "", 700),
      mapping(0x7f0000000000, 1024, "/usr/lib/x86_64-linux-gnu/libc.so.6", 800),
      mapping(0x7ffff0000000, 132, "[stack]", 40),
      mapping(0x7ffff8000000, 8, "[vdso]", 8),
    ].join("\n")
    expect(byMapping(smaps, "/usr/bin/node")).toEqual({
      exe: 3100,
      files: 800,
      mallocHeap: 900,
      v8Pages: 256,
      v8PagesMapped: 512,
      otherAnon: 708,
      stack: 40,
      total: 5804,
    })
  })

  it("reads a live Node process: its parts add up to about its VmRSS, and its V8 pages are there", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000); console.log('up')"], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    try {
      await new Promise((resolve) => child.stdout.once("data", resolve))
      const pid = child.pid!
      const parts = ofProcess(pid)!
      const vmRss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])
      expect(parts.exe).toBeGreaterThan(1024)
      expect(parts.v8Pages).toBeGreaterThan(256)
      expect(parts.v8PagesMapped).toBeGreaterThanOrEqual(parts.v8Pages)
      expect(parts.exe + parts.files + parts.mallocHeap + parts.v8Pages + parts.otherAnon + parts.stack).toBe(
        parts.total,
      )
      // read a moment apart from VmRSS; an idle process barely moves
      expect(Math.abs(parts.total - vmRss)).toBeLessThan(vmRss / 10)
    } finally {
      child.kill()
    }
    expect(ofProcess(2 ** 22 + 1)).toBeUndefined()
  })
})
