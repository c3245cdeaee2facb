/**
 * `GET /api/usage` of a real supervisor (over its Unix socket): samples of the daemons' process
 * trees every 5 s, CPU from a daemon that burns some, and a cleaned daemon forgotten.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiGet, type DaemonSandbox, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"

interface Usage {
  readonly interval_ms: number
  readonly capacity: number
  readonly daemons: ReadonlyArray<{
    readonly id: string
    readonly samples: ReadonlyArray<{ at: number; cpu_percent: number; memory_bytes: number }>
  }>
}

let sb: DaemonSandbox
let dir: string

const usage = async () => (await apiGet<Usage>(sb.stateDir, "/api/usage")) as Usage
const samplesOf = async (id: string) => (await usage()).daemons.find((d) => d.id === id)?.samples ?? []

const expectOk = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  expect(r.stderr).not.toMatch(STACK_LINE)
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.sleeper]
run = "exec sleep 300"
ready_delay = 0

# a few seconds of busy loop in the shell itself (one core), then idle
[daemons.burner]
run = "i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done; exec sleep 300"
ready_delay = 0
`,
  )
  expectOk(["supervisor", "start"])
  expectOk(["start", "sleeper", "burner"])
}, 30_000)

afterAll(() => sb?.destroy())

describe("GET /api/usage (e2e)", () => {
  it("samples each running daemon every 5 s: resident memory, and the CPU of a busy one", async () => {
    const u = await usage()
    expect(u).toMatchObject({ interval_ms: 5000, capacity: 60 })
    const samples = await waitFor(
      "three samples of app/sleeper",
      async () => {
        const s = await samplesOf("app/sleeper")
        return s.length >= 3 ? s : undefined
      },
      { timeout: 30_000 },
    )
    for (const s of samples) expect(s.memory_bytes).toBeGreaterThan(0)
    for (let i = 1; i < samples.length; i++) {
      const gap = (samples[i]?.at ?? 0) - (samples[i - 1]?.at ?? 0)
      // never sooner than the interval; later on a busy machine, so no upper bound
      expect(gap).toBeGreaterThanOrEqual(4900)
    }
    // the burner's busy seconds show as CPU in one of its samples
    await waitFor(
      "a busy sample of app/burner",
      async () => (await samplesOf("app/burner")).some((s) => s.cpu_percent > 20) || undefined,
      { timeout: 30_000 },
    )
  }, 80_000)

  it("a stopped daemon keeps its samples without new ones; a cleaned one is forgotten", async () => {
    expectOk(["stop", "sleeper"])
    const kept = (await samplesOf("app/sleeper")).length
    expect(kept).toBeGreaterThan(0)
    // two sampling passes later: no new sample
    const burnerBefore = (await samplesOf("app/burner")).length
    await waitFor(
      "two more samples of app/burner",
      async () => (await samplesOf("app/burner")).length >= Math.min(60, burnerBefore + 2) || undefined,
      { timeout: 30_000 },
    )
    expect((await samplesOf("app/sleeper")).length).toBe(kept)
    expectOk(["clean"]) // forgets the daemons that are not running: app/sleeper
    await waitFor(
      "app/sleeper gone from GET /api/usage",
      async () => !(await usage()).daemons.some((d) => d.id === "app/sleeper") || undefined,
      { timeout: 30_000 },
    )
  }, 80_000)
})
