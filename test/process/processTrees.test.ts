import { describe, expect, it } from "vitest"
import { treesOf } from "../../src/process/processTrees.js"
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
