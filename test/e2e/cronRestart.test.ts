/**
 * Cron across a supervisor restart, through the built CLI: a scheduled time that passed while no
 * supervisor ran fires once when the next supervisor takes the project on again (known projects
 * are kept in the state), then the schedule goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string

const lines = async () => (await storedLogs(sb.stateDir, "job/report")).map((e) => e.message)
const fired = (l: ReadonlyArray<string>) => l.filter((x) => x.startsWith("[supervisor] cron: starting"))

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "job",
    '[daemons.report]\nrun = "echo report-ran"\nready_delay = 0\ncron = "*/5 * * * * *"\n',
  )
  expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("cron across a supervisor restart (e2e)", () => {
  it(
    "a time missed while the supervisor was down fires once at the next start; the schedule goes on",
    async () => {
      expect(sb.cli(["list"], dir).status).toBe(0)
      await waitFor("a first cron run", async () => fired(await lines()).length >= 1, {
        timeout: 10_000,
        interval: 200,
      })
      const before = fired(await lines()).length
      const stopped = sb.cli(["supervisor", "stop"], sb.root)
      expect(stopped.status, stopped.stderr).toBe(0)
      // down across at least one scheduled time
      await new Promise((r) => setTimeout(r, 6_000))
      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      const missed = await waitFor(
        "the missed run",
        async () => {
          const found = (await lines()).filter((x) => x.includes(", missed run of "))
          return found.length > 0 ? found : undefined
        },
        { timeout: 10_000, interval: 100 },
      )
      expect(missed.length).toBeGreaterThanOrEqual(1)
      await waitFor(
        "a scheduled run after the missed one",
        async () => fired(await lines()).length >= before + 2,
        { timeout: 12_000, interval: 200 },
      )
      // exactly one catch-up, however many times were missed
      expect((await lines()).filter((x) => x.includes(", missed run of "))).toHaveLength(1)
    },
    T,
  )
})
