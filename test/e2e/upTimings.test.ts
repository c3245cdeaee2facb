/**
 * `supervisor up --timings` through the built CLI: the summary on stdout stays what it was (with
 * `--json` its Schema), the timings follow on stderr, and their total is the wait the summary
 * reports (`elapsed_ms`, the same interval on the same clock) within 10%; the critical chain adds
 * up to that total.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { msOf } from "./durationText.js"
import { type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "stack",
    `
[daemons.db]
run = "exec sleep 300"
ready_delay = 0.6

[daemons.api]
run = "exec sleep 300"
depends = ["db"]
ready_delay = 0.4

[daemons.web]
run = "exec sleep 300"
depends = ["api"]
ready_delay = 0.2
`,
  )
  expect((await sb.cliAsync(["supervisor", "start"], proj)).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

const ms = msOf

it(
  "up --timings --json: the summary on stdout, the chain db → api → web on stderr adding up to the wait",
  async () => {
    const r = await sb.cliAsync(["up", "--timings", "--json"], proj)
    expect(r.status, r.stderr).toBe(0)
    const summary = JSON.parse(r.stdout) as {
      ok: boolean
      elapsed_ms: number
      daemons: Array<{ id: string; ready_ms: number | null }>
    }
    expect(summary.ok).toBe(true)
    expect(summary.daemons.map((d) => d.id).sort()).toEqual(["stack/api", "stack/db", "stack/web"])
    const lines = r.stderr.trimEnd().split("\n")
    expect(
      lines.some((l) => /^DAEMON\s+DEPS\s+SPAWN\s+READY\s+AT$/.test(l)),
      r.stderr,
    ).toBe(true)
    const chain = lines.at(-1)!
    const m = /^critical chain: stack\/db \((.+)\) → stack\/api \((.+)\) → stack\/web \((.+)\) = (.+)$/.exec(
      chain,
    )
    expect(m, chain).not.toBeNull()
    const [db, api, web, total] = [ms(m![1]!), ms(m![2]!), ms(m![3]!), ms(m![4]!)]
    expect(Math.abs(db + api + web - total)).toBeLessThanOrEqual(20) // each step rounded to 10 ms past a second
    expect(total).toBeGreaterThanOrEqual(600 + 400 + 200)
    // the chain ends when the last daemon was ready, the moment the summary gives for it (both
    // taken as its event came); the wait went on only to the stream's end
    const webRow = summary.daemons.find((d) => d.id === "stack/web")!
    expect(Math.abs(total - webRow.ready_ms!)).toBeLessThanOrEqual(20)
    expect(total).toBeLessThanOrEqual(summary.elapsed_ms + 20)
  },
  T,
)

it(
  "up --timings on a terminal-less run: the summary table, then the timings",
  async () => {
    expect((await sb.cliAsync(["down"], proj)).status).toBe(0)
    const r = await sb.cliAsync(["up", "web", "--timings"], proj)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/stack\/web/)
    expect(r.stderr).toMatch(/critical chain: stack\/db \(.+\) → stack\/api \(.+\) → stack\/web \(.+\) = /)
  },
  T,
)
