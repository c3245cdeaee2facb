/**
 * `supervisor start --timings` through the built CLI: each daemon's time waiting for its
 * dependencies, to spawn and to be ready, then the critical chain, whose times add up to the
 * total; the total is at least the chain's ready delays and at most the command's own wall time.
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
    "app",
    `
[daemons.db]
run = "exec sleep 300"
ready_delay = 0.8

[daemons.cache]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.api]
run = "exec sleep 300"
depends = ["db", "cache"]
ready_delay = 0.5

[daemons.web]
run = "exec sleep 300"
depends = [{ id = "api", condition = "started" }]
ready_delay = 0.1
`,
  )
  expect((await sb.cliAsync(["supervisor", "start"], proj)).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

const ms = msOf

it(
  "a row per daemon, and the chain db → api that set the total, adding up to it",
  async () => {
    const started = Date.now()
    const r = await sb.cliAsync(["start", "web", "--timings"], proj)
    const wall = Date.now() - started
    expect(r.status, r.stderr).toBe(0)
    const lines = r.stderr.trimEnd().split("\n")
    const header = lines.findIndex((l) => /^DAEMON\s+DEPS\s+SPAWN\s+READY\s+AT$/.test(l))
    expect(header).toBeGreaterThanOrEqual(0)
    const rows = new Map(
      lines.slice(header + 1, header + 5).map((l) => {
        const [id, ...cells] = l.split(/\s{2,}/)
        return [id, cells.map(ms)] as const
      }),
    )
    expect([...rows.keys()].sort()).toEqual(["app/api", "app/cache", "app/db", "app/web"])
    for (const [id, [deps, spawn, ready, at]] of rows)
      expect(Math.abs(deps! + spawn! + ready! - at!), id).toBeLessThanOrEqual(20) // each cell rounded to 10 ms past a second
    // api waited for db (the slower dependency), web only for api's start
    expect(rows.get("app/api")![0]).toBeGreaterThanOrEqual(rows.get("app/db")![3]! - 1)
    expect(rows.get("app/web")![0]).toBeLessThan(rows.get("app/api")![3]!)
    const chain = lines.at(-1)!
    const m = /^critical chain: app\/db \((.+)\) → app\/api \((.+)\) = (.+)$/.exec(chain)
    expect(m, chain).not.toBeNull()
    const [first, second, total] = [ms(m![1]!), ms(m![2]!), ms(m![3]!)]
    expect(Math.abs(first + second - total)).toBeLessThanOrEqual(15)
    // at least the ready delays along the chain, at most what the command took
    expect(total).toBeGreaterThanOrEqual(800 + 500)
    expect(total).toBeLessThanOrEqual(wall)
  },
  T,
)

it(
  "--json keeps stdout the outcomes; the timings go to stderr",
  async () => {
    expect((await sb.cliAsync(["stop", "--all"], proj)).status).toBe(0)
    const r = await sb.cliAsync(["start", "cache", "--timings", "--json"], proj)
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject([{ _tag: "Ready", id: "app/cache" }])
    expect(r.stderr).toMatch(/critical chain: app\/cache \(.+\) = /)
  },
  T,
)
