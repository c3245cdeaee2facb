// `stop --all` in a directory whose configuration is broken: it needs no configuration, so it
// stops every running daemon, says which, warns about the file and exits 0.
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonPids, makeDaemonSandbox } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
  sb.env.NO_COLOR = "1"
})
afterEach(() => sb.destroy(), T)

describe("stop --all with a broken configuration here", () => {
  it(
    "stops the daemons of every project, lists them, warns about the file, exits 0",
    () => {
      const other = sb.project("other", '[daemons.api]\nrun = "exec sleep 300"\nready_delay = 0.2\n')
      const started = sb.cli(["start", "api"], other)
      expect(started.status, started.stderr).toBe(0)
      const broken = sb.project("broken", '[daemons.web]\nrun = "exec sleep 300"\nbogus = 1\n')
      const r = sb.cli(["stop", "--all"], broken)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("✓ other/api stopped")
      expect(r.stderr).toContain("warning:")
      expect(r.stderr).toContain("bogus")
      expect(r.stderr).not.toContain("error:")
      expect(daemonPids(sb.stateDir, "other/api")).toEqual([])
      // a selection by ID reads the configuration: its problems are errors (exit 1)
      const named = sb.cli(["stop", "other/api"], broken)
      expect(named.status).toBe(1)
      expect(named.stderr).toContain("error:")
    },
    T,
  )
})
