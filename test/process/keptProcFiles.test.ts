import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { makeKeptProcFiles } from "../../src/process/keptProcFiles.js"
import { readStat } from "../../src/process/procfs.js"
import { openFdCount } from "../../src/process/sockets.js"

/** This process's fds open on a `/proc/<pid>/...` path of `pid`. */
const keptOf = (pid: number) =>
  fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`/proc/${pid}/`)
    } catch {
      return false
    }
  }).length

const children: Array<ChildProcess> = []
const sleeper = () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" })
  children.push(child)
  return child
}
/** Waits until `pid` sleeps in `sleep` (exec done, nothing left to change in its stat line). */
const asleep = async (pid: number) => {
  const deadline = Date.now() + 10_000
  while (!(readStat(pid)?.state === "S" && readStat(pid)?.comm === "sleep")) {
    if (Date.now() > deadline) throw new Error(`process ${pid} never went to sleep`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())))
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL")
})

describe("the stat files and fd directories a sampler keeps open", () => {
  it("read a process as its paths do, with one file of each kept open across passes", async () => {
    const child = sleeper()
    const pid = child.pid as number
    await asleep(pid)
    const files = makeKeptProcFiles()
    files.startPass()
    expect(files.stat(pid)).toEqual(readStat(pid))
    expect(files.fdCount(pid)).toBe(openFdCount(pid))
    expect(keptOf(pid)).toBe(2)
    for (let pass = 0; pass < 3; pass++) {
      files.startPass()
      expect(files.stat(pid)?.pid).toBe(pid)
      expect(files.fdCount(pid)).toBe(openFdCount(pid))
    }
    expect(keptOf(pid)).toBe(2)
    files.close()
    expect(keptOf(pid)).toBe(0)
  })

  it("close the files of a process the last pass did not read", () => {
    const a = sleeper().pid as number
    const b = sleeper().pid as number
    const files = makeKeptProcFiles()
    files.startPass()
    files.stat(a)
    files.stat(b)
    files.startPass()
    files.stat(a)
    expect([keptOf(a), keptOf(b)]).toEqual([1, 1]) // b was read in the pass before this one
    files.startPass()
    expect([keptOf(a), keptOf(b)]).toEqual([1, 0])
    files.close()
  })

  it("say a reaped process is gone, and let go of its files", async () => {
    const child = sleeper()
    const pid = child.pid as number
    await asleep(pid)
    const files = makeKeptProcFiles()
    files.startPass()
    expect(files.stat(pid)?.state).toBe("S")
    expect(files.fdCount(pid)).toBeGreaterThan(0)
    child.kill("SIGKILL")
    await exited(child)
    expect(files.stat(pid)).toBeUndefined()
    expect(files.fdCount(pid)).toBeUndefined()
    expect(keptOf(pid)).toBe(0)
    files.close()
  })

  it("read by path past the limit of kept files", () => {
    const pids = [sleeper().pid as number, sleeper().pid as number]
    const files = makeKeptProcFiles(1)
    files.startPass()
    expect(pids.map((pid) => files.stat(pid)?.pid)).toEqual(pids)
    expect(pids.map(keptOf)).toEqual([1, 0])
    files.close()
  })
})
