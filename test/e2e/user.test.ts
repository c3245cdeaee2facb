import { readFileSync } from "node:fs"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonPids, makeDaemonSandbox } from "./harness.js"

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
})
afterEach(() => sb.destroy())

const root = process.getuid?.() === 0

describe("user switching", () => {
  it(root ? "runs a daemon as its configured user" : "refuses to switch users without root", () => {
    const dir = sb.project(
      "app",
      '[daemons.web]\nrun = "exec sleep 300"\nuser = "nobody"\nready_delay = 0.2\n[daemons.mine]\nrun = "exec sleep 300"\nready_delay = 0.2\n',
    )
    const r = sb.cli(["start", "--all"], dir)
    if (!root) {
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/running as user nobody needs a supervisor running as root/)
      return
    }
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    const [web] = daemonPids(sb.stateDir, "app/web")
    const [mine] = daemonPids(sb.stateDir, "app/mine")
    expect(uidOf(web!)).toBe(65534)
    expect(uidOf(mine!)).toBe(0)
  }, 30_000)

  it("an unknown user fails the start with a clear message", () => {
    const dir = sb.project(
      "app",
      '[daemons.web]\nrun = "sleep 300"\nuser = "no-such-user-xyz"\nready_delay = 0.2\n',
    )
    const r = sb.cli(["start", "web"], dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(
      /app\/web failed to start: cannot start daemon app\/web: no user named "no-such-user-xyz"/,
    )
  }, 30_000)
})
