import { describe, expect, it } from "vitest"
import { cpuBaseline, cpuSecondsSince, treesOf } from "../../src/process/processTrees.js"
import { PAGE_SIZE, type ProcStat } from "../../src/process/procfs.js"
import { readingOf } from "../../src/process/procSource.js"

const stat = (pid: number, ppid: number, pgrp: number, rssPages: number, ticks: number): ProcStat => ({
  pid,
  comm: `p${pid}`,
  state: "S",
  ppid,
  pgrp,
  session: pgrp,
  utime: ticks,
  stime: 0,
  numThreads: 1,
  startTime: String(pid * 10),
  vsize: 0,
  rss: rssPages,
})

describe("treesOf", () => {
  it("sums the root, its descendants (also in another group) and its group's members, each once", () => {
    const stats = [
      stat(1, 0, 1, 1, 0), // init: not ours
      stat(100, 1, 100, 10, 100), // the daemon's shell
      stat(101, 100, 100, 20, 50), // `node hog.js &`
      stat(102, 101, 102, 30, 25), // a grandchild that made its own group
      stat(103, 1, 100, 40, 10), // an orphan of the group, reparented to init
      stat(200, 1, 200, 1000, 999), // another daemon
    ]
    const trees = treesOf(
      stats.map((s) => readingOf(s, 10_000)),
      [100, 300],
    )
    expect([...trees.keys()]).toEqual([100])
    const tree = trees.get(100)!
    expect(tree.memoryBytes).toBe((10 + 20 + 30 + 40) * PAGE_SIZE)
    expect(tree.processes.map((p) => p.key).sort()).toEqual(["100:1000", "101:1010", "102:1020", "103:1030"])
    expect(tree.processes.reduce((n, p) => n + p.cpuSeconds, 0)).toBeCloseTo(1.85)
  })
})

describe("a tree's CPU baseline", () => {
  const proc = (pid: number, cpuSeconds: number) => ({
    pid,
    key: `${pid}:1`,
    cpuSeconds,
    lifetimeCpuPercent: 0,
  })
  it("counts the seconds since, a process new since then whole, one that went back as none", () => {
    for (const size of [1, 8, 9, 40]) {
      const before = Array.from({ length: size }, (_, i) => proc(100 + i, 2))
      const baseline = cpuBaseline(before)
      expect(Array.isArray(baseline)).toBe(size <= 8) // a small tree keeps its own list: no map
      const after = [...before.map((p, i) => proc(p.pid, i === 0 ? 1.5 : 3)), proc(999, 0.25)]
      expect(cpuSecondsSince(after, baseline)).toBeCloseTo((size - 1) * 1 + 0.25)
    }
  })
})
