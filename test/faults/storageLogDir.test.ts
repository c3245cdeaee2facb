import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "../e2e/harness.js"
import {
  onlySupervisor,
  problems,
  ROUNDS,
  setFaults,
  tickerProject,
  tickGaps,
  waitClear,
  withFaults,
} from "./storageFixture.js"

// The log directory made unwritable (a read-only file system, injected: chmod does not stop
// root): the supervisor runs on, says what fails and the fix, loses no line the daemon wrote,
// and recovers when the fault is removed.

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

describe("the log directory", () => {
  it("read-only: the supervisor runs on, says it, and every line is there once it is writable", async () => {
    sb = makeDaemonSandbox()
    const faults = withFaults(sb)
    const app = tickerProject(sb)
    expect(sb.cli(["start", "ticker"], app).status).toBe(0)
    const supervisor = onlySupervisor(sb)
    const logs = join(sb.stateDir, "logs")
    for (let round = 0; round < ROUNDS; round++) {
      setFaults(faults, [`EROFS ${logs}/`])
      const problem = await waitFor("the index writes failing", async () =>
        ((await problems(sb!.stateDir)) ?? []).find((p) => p.area === "logs" && p.code === "EROFS"),
      )
      expect(problem.message).toContain(`the file system of ${logs} is read-only: remount it read-write`)
      expect(sb.cli(["supervisor", "status"], app).stdout).toContain("is read-only: remount it read-write")
      expect(sb.cli(["status", "ticker"], app).stdout).toMatch(
        /^Log: cannot write the log file .*app--ticker\.\w+ \(EROFS\)/m,
      )
      expect(onlySupervisor(sb)).toBe(supervisor)
      expect((await daemonEntry(sb.stateDir, "app/ticker"))?.status.type).toBe("running")
      setFaults(faults, [])
      await waitClear(sb.stateDir)
    }
    const messages = (await storedLogs(sb.stateDir, "app/ticker")).map((e) => e.message)
    expect(tickGaps(messages)).toEqual([])
    expect(
      messages.some((m) => /^\[supervisor\] \d+ write\(s\) to .*app--ticker\.idx failed .*\(EROFS\)/.test(m)),
    ).toBe(true)
    expect(readFileSync(join(logs, "supervisor.log"), "utf8")).toContain("EROFS")
    expect(sb.cli(["status", "ticker"], app).stdout).not.toContain("Log:")
  }, 60_000)
})
