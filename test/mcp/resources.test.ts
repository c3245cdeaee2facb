import { describe, expect, it } from "vitest"
import { stateWords } from "../../src/mcp/resources.js"

describe("stateWords (a log resource's description)", () => {
  it("says the status, the pid, and why it ended, in words", () => {
    expect(stateWords({ status: { type: "running" }, pid: 4242 })).toBe("running, pid 4242")
    expect(
      stateWords({ status: { type: "errored", exit_code: 1, message: "exited with code 1" }, pid: null }),
    ).toBe("errored: exited with code 1")
    expect(stateWords({ status: { type: "stopped", exit_code: null, signal: "SIGKILL" }, pid: null })).toBe(
      "stopped: signal SIGKILL",
    )
    expect(stateWords({ status: { type: "failed", exit_code: 3 }, pid: null })).toBe("failed: exit code 3")
    expect(stateWords({ status: { type: "available" }, pid: null })).toBe("available")
  })
})
