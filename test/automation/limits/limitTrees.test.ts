import { describe, expect, it } from "vitest"
import { makeProcScanner, treesOf } from "../../../src/automation/limits/trees.js"
import { PAGE_SIZE, type ProcStat } from "../../../src/process/procfs.js"

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
    const trees = treesOf(stats, [100, 300])
    expect([...trees.keys()]).toEqual([100])
    const tree = trees.get(100)!
    expect(tree.memoryBytes).toBe((10 + 20 + 30 + 40) * PAGE_SIZE)
    expect(tree.processes.map((p) => p.key).sort()).toEqual(["100:1000", "101:1010", "102:1020", "103:1030"])
    expect(tree.processes.reduce((n, p) => n + p.cpuSeconds, 0)).toBeCloseTo(1.85)
  })
})

describe("makeProcScanner", () => {
  it("reads every process once, then only tree members and new pids until the roots change", () => {
    let procs = [
      stat(1, 0, 1, 1, 0),
      stat(50, 1, 50, 1, 0),
      stat(100, 1, 100, 10, 0),
      stat(101, 100, 100, 5, 0),
    ]
    const read: Array<number> = []
    const scan = makeProcScanner({
      listPids: () => procs.map((p) => p.pid),
      readStat: (pid) => {
        read.push(pid)
        return procs.find((p) => p.pid === pid)
      },
    })
    expect(scan([])).toEqual(new Map())
    expect(read).toEqual([])
    expect(scan([100]).get(100)?.memoryBytes).toBe(15 * PAGE_SIZE)
    expect(read.splice(0)).toEqual([1, 50, 100, 101])
    // a child born since, and an unrelated process: both read once
    procs = [...procs, stat(102, 101, 100, 7, 0), stat(60, 1, 60, 1, 0)]
    expect(scan([100]).get(100)?.memoryBytes).toBe(22 * PAGE_SIZE)
    expect(read.splice(0).sort()).toEqual([100, 101, 102, 60])
    scan([100])
    expect(read.splice(0).sort()).toEqual([100, 101, 102])
    // another root: everything is read again
    scan([100, 50])
    expect(read.splice(0).sort((a, b) => a - b)).toEqual([1, 50, 60, 100, 101, 102])
  })
})
