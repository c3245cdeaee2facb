import * as fs from "node:fs"
import { Either, JSONSchema, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ProcessTreeNode } from "../../src/domain/ProcessTree.js"
import {
  cpuUsage,
  PAGE_SIZE,
  parseStat,
  readAllStats,
  readMemory,
  readStat,
  stateName,
} from "../../src/process/procfs.js"

const tail =
  "0 -1 4194304 96 0 0 0 150 50 0 0 20 0 3 0 104750 3133440 381 18446744073709551615 94617038700544 94617038720425 140722686668016 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"

describe("parseStat", () => {
  it("reads the fields of an ordinary line", () => {
    expect(parseStat(`22293 (cat) R 22290 22290 16899 ${tail}\n`)).toEqual({
      pid: 22293,
      comm: "cat",
      state: "R",
      ppid: 22290,
      pgrp: 22290,
      session: 16899,
      utime: 150,
      stime: 50,
      numThreads: 3,
      startTime: "104750",
      vsize: 3133440,
      rss: 381,
    })
  })

  it.each([
    ["a) b", "(a) b)"],
    ["Web Content", "(Web Content)"],
    [") S 1 2 3 (", "() S 1 2 3 ()"],
    ["((", "((()"],
    ["", "()"],
  ])("splits at the last ')' so the comm %j survives", (comm, field) => {
    const stat = parseStat(`42 ${field} S 7 42 42 ${tail}`)
    expect(stat?.comm).toBe(comm)
    expect(stat?.state).toBe("S")
    expect(stat?.ppid).toBe(7)
    expect(stat?.pgrp).toBe(42)
    expect(stat?.startTime).toBe("104750")
  })

  it("reads fields apart by runs of spaces or tabs as by single spaces", () => {
    const spaced = parseStat(`22293 (cat)  R\t22290 22290   16899 ${tail.replaceAll(" ", "  ")}`)
    expect(spaced).toEqual(parseStat(`22293 (cat) R 22290 22290 16899 ${tail}`))
    expect(spaced?.rss).toBe(381)
  })

  it.each(["", "123", "12 (x) S 1", `x (sh) S 1 1 1 ${tail}`, `12 sh) S 1 1 1 ${tail}`])(
    "rejects the malformed line %j",
    (line) => {
      expect(parseStat(line)).toBeUndefined()
    },
  )
})

describe("reading /proc", () => {
  it("reads this process", () => {
    const stat = readStat(process.pid)
    expect(stat?.pid).toBe(process.pid)
    expect(stat?.ppid).toBe(process.ppid)
    expect(stat?.state).toMatch(/^[RS]$/)
    expect(stat?.numThreads).toBeGreaterThan(1)
    expect(readAllStats().some((s) => s.pid === process.pid)).toBe(true)
    const memory = readMemory(process.pid)
    expect(memory.residentBytes).toBeGreaterThan(1024 * 1024)
    expect(memory.virtualBytes).toBeGreaterThan(memory.residentBytes)
    // the stat line's resident set (what daemon usage sums) is statm's, give or take a few pages
    const fromStat = (readStat(process.pid)?.rss ?? 0) * PAGE_SIZE
    expect(Math.abs(fromStat - readMemory(process.pid).residentBytes)).toBeLessThan(4 * 1024 * 1024)
  })

  it("answers undefined, not an error, for a process that does not exist", () => {
    expect(readStat(99_999_999)).toBeUndefined()
    expect(readMemory(99_999_999)).toEqual({ virtualBytes: 0, residentBytes: 0 })
  })

  it("agrees with the kernel on a real stat line", () => {
    const line = fs.readFileSync("/proc/self/stat", "utf8")
    expect(parseStat(line)?.pid).toBe(process.pid)
  })
})

describe("stateName", () => {
  it.each([
    ["R", "Run"],
    ["S", "Sleep"],
    ["D", "Disk"],
    ["Z", "Zombie"],
    ["T", "Stop"],
    ["t", "Tracing"],
    ["I", "Idle"],
    ["X", "Dead"],
    ["?", "Unknown"],
  ])("maps %s to %s", (letter, name) => {
    expect(stateName(letter)).toBe(name)
  })
})

describe("cpuUsage", () => {
  it("divides CPU time by the time the process has run", () => {
    // started 10 s after boot, now 30 s after boot: 20 s of life, 2 s of CPU
    expect(cpuUsage({ utime: 150, stime: 50, startTime: "1000" }, 30)).toEqual({
      uptimeSecs: 20,
      cpuPercent: 10,
    })
  })

  it("reports more than 100 for a process using several cores", () => {
    expect(cpuUsage({ utime: 3000, stime: 1000, startTime: "0" }, 20).cpuPercent).toBe(200)
  })

  it("is 0, not NaN, for a process that started this instant", () => {
    expect(cpuUsage({ utime: 1, stime: 0, startTime: "3000" }, 30)).toEqual({ uptimeSecs: 0, cpuPercent: 0 })
  })
})

describe("ProcessTreeNode", () => {
  const leaf = {
    pid: 2,
    name: "sleep",
    exe: "/usr/bin/sleep",
    cpu_percent: 0,
    memory_bytes: 4096,
    virtual_memory_bytes: 8192,
    uptime_secs: 1,
    thread_count: 1,
    status: "Sleep",
    children: [],
  }

  it("decodes a nested tree", () => {
    const tree = { ...leaf, pid: 1, name: "sh", children: [leaf, { ...leaf, pid: 3, children: [leaf] }] }
    expect(Schema.decodeUnknownSync(ProcessTreeNode)(tree)).toEqual(tree)
  })

  it("rejects a node without the spec's fields", () => {
    const { thread_count: _, ...missing } = leaf
    expect(Either.isLeft(Schema.decodeUnknownEither(ProcessTreeNode)({ ...leaf, children: [missing] }))).toBe(
      true,
    )
  })

  it("generates a JSON Schema with a recursive reference", () => {
    const json = JSONSchema.make(ProcessTreeNode) as {
      $ref?: string
      $defs?: Record<string, { properties: Record<string, unknown>; required: Array<string> }>
    }
    expect(json.$ref).toBe("#/$defs/ProcessTreeNode")
    const node = json.$defs?.ProcessTreeNode
    expect(node?.required).toEqual([
      "pid",
      "name",
      "exe",
      "cpu_percent",
      "memory_bytes",
      "virtual_memory_bytes",
      "uptime_secs",
      "thread_count",
      "status",
      "children",
    ])
    expect(JSON.stringify(node?.properties.children)).toContain("#/$defs/ProcessTreeNode")
  })
})
