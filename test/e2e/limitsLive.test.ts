/**
 * Limit settings edited in the user config while the supervisor runs, through the built CLI with
 * a real busy loop: checked every 60 s and after 5 samples at first, it is killed within seconds
 * once the file says every 500 ms and after 1 sample, without a restart of the supervisor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)
const USER_CONFIG = "home/.config/supervisor/config.toml"

beforeAll(() => {
  sb = makeDaemonSandbox()
  sb.write({
    [USER_CONFIG]:
      '[settings.general]\ninterval = "60s"\n[settings.supervisor]\ncpu_violation_threshold = 5\n',
  })
  dir = sb.project(
    "app",
    `
[daemons.busy]
run = "node -e 'for (;;) {}'"
ready_delay = 0.1
cpu_limit = 30
`,
  )
})
afterAll(() => sb.destroy())

describe("limit settings (e2e)", () => {
  it(
    "general.interval and cpu_violation_threshold edited in the user config apply without a restart",
    async () => {
      expect(cli("start", "busy").status).toBe(0)
      const supervisor = (JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }).pid
      sb.write({
        [USER_CONFIG]:
          '[settings.general]\ninterval = "500ms"\n[settings.supervisor]\ncpu_violation_threshold = 1\n',
      })
      // a check every 500 ms; the first sample of the run is the baseline, the next one kills
      const killed = await waitFor(
        "the busy loop to be killed",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/busy")
          return e?.status.type === "errored" && e.pid === null ? e : undefined
        },
        { timeout: 20_000 },
      )
      expect(killed.status.message).toMatch(/^killed: cpu \d+% over cpu_limit 30% for 1 sample$/)
      expect((JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }).pid).toBe(
        supervisor,
      )
    },
    T,
  )
})
