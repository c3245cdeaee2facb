/**
 * Command lines racing, through the built CLI: 2 and 10 CLIs started at once against a sandbox
 * with no supervisor, each starting the same three daemons, end with exactly one supervisor and
 * one process per daemon, and every CLI exits 0 having said `started` or `already running` with
 * that process's pid. Then 10 concurrent `stop`/`restart` (seeded mix) and 10 concurrent `stop`
 * of one daemon: every stop exits 0, every restart is ready or says a later stop stopped it while
 * it was starting, and at the end either one process runs, the one recorded, or none. `FAULT_ROUNDS` (npm run test:faults) repeats each race a fifth as many times.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  isAlive,
  makeDaemonSandbox,
  supervisorPids,
  type TimedResult,
  waitFor,
} from "../e2e/harness.js"
import { leftOf } from "./procs.js"

const T = 120_000
/** The full run (`FAULT_ROUNDS=100`) plays each race a fifth as many times; the normal run once. */
const ROUNDS = Math.max(1, Math.ceil(Number(process.env.FAULT_ROUNDS ?? 0) / 5))
const SEED = Number(process.env.FAULT_SEED ?? 23)
const NAMES = ["a", "b", "c"] as const

const CONFIG = NAMES.map((n) => `[daemons.${n}]\nrun = "exec sleep 300"\nready_delay = 0.2\n`).join("\n")

let sb: DaemonSandbox
let proj: string

beforeEach(() => {
  sb = makeDaemonSandbox()
  proj = sb.project("race", CONFIG)
})
afterEach(() => sb.destroy(), T)

/** A small seeded generator (mulberry32): the same mix of commands for a seed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const all = (n: number, args: ReadonlyArray<string>) =>
  Promise.all(Array.from({ length: n }, () => sb.cliAsync(args, proj)))

interface Outcome {
  readonly _tag: string
  readonly id: string
  readonly pid?: number
}

/** What a `start --json` printed: its outcomes, by daemon. */
const outcomesOf = (r: TimedResult): Array<Outcome> => JSON.parse(r.stdout) as Array<Outcome>

const oneSupervisor = () =>
  waitFor("exactly one supervisor", () => supervisorPids(sb.stateDir).length === 1, { timeout: 10_000 })

/** n CLIs, at once, each `start a b c` with no supervisor running. */
const raceStart = async (n: number, round: number) => {
  expect(supervisorPids(sb.stateDir)).toEqual([])
  const results = await all(n, ["start", ...NAMES, "--json"])
  const context = `round ${round}, ${n} CLIs:\n${results.map((r) => r.stdout + r.stderr).join("\n")}`
  for (const r of results) expect(r.status, context).toBe(0)
  // a CLI that lost the race to start the supervisor leaves it, and its own try exits
  await oneSupervisor()
  for (const name of NAMES) {
    const id = `race/${name}`
    const pids = daemonPids(sb.stateDir, id)
    expect(pids, `${id}: ${context}`).toHaveLength(1)
    const outcomes = results.map((r) => outcomesOf(r).find((o) => o.id === id))
    for (const o of outcomes) {
      expect(["Ready", "AlreadyRunning"], context).toContain(o?._tag)
      expect(o?.pid, context).toBe(pids[0])
    }
    expect(
      outcomes.filter((o) => o?._tag === "Ready"),
      `${id} started once: ${context}`,
    ).toHaveLength(1)
    expect((await daemonEntry(sb.stateDir, id))?.pid).toBe(pids[0])
  }
}

/** Back to no supervisor and no daemon, for the next round. */
const reset = async () => {
  const r = await sb.cliAsync(["supervisor", "stop"], proj)
  expect(r.status, r.stderr).toBe(0)
  await waitFor("no supervisor", () => supervisorPids(sb.stateDir).length === 0)
  expect(daemonPids(sb.stateDir)).toEqual([])
}

describe("CLIs racing to start the supervisor and the same daemons", () => {
  it(
    `2 CLIs at once, ${ROUNDS} round(s): one supervisor, one process per daemon, every answer right`,
    async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        await raceStart(2, round)
        await reset()
      }
    },
    T * ROUNDS,
  )

  it(
    `10 CLIs at once, ${ROUNDS} round(s): one supervisor, one process per daemon, every answer right`,
    async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        await raceStart(10, round)
        await reset()
      }
    },
    T * ROUNDS,
  )
})

describe("CLIs racing on one running daemon", () => {
  it(
    `10 concurrent stop/restart (seeded mix), then 10 concurrent stop, ${ROUNDS} round(s)`,
    async () => {
      const next = random(SEED)
      for (let round = 1; round <= ROUNDS; round++) {
        const started = await sb.cliAsync(["start", "a"], proj)
        expect(started.status, started.stderr).toBe(0)
        const first = daemonPids(sb.stateDir, "race/a")
        expect(first).toHaveLength(1)
        const mix = Array.from({ length: 10 }, () => (next() < 0.5 ? "stop" : "restart"))
        const context = (rs: ReadonlyArray<TimedResult>) =>
          `seed ${SEED}, round ${round}, ${mix.join(" ")}:\n${rs.map((r, i) => `${mix[i]} → ${r.status}: ${r.stdout}${r.stderr}`).join("\n")}`
        const results = await Promise.all(mix.map((cmd) => sb.cliAsync([cmd, "a"], proj)))
        // a stop always succeeds; a restart either gets its process ready, or says that a stop
        // that came after it stopped it while it was starting (exit 1, docs/states.md)
        results.forEach((r, i) => {
          if (mix[i] === "stop") expect(r.status, context(results)).toBe(0)
          else if (r.status === 0)
            expect(r.stdout, context(results)).toMatch(/race\/a is running \(pid \d+\)/)
          else {
            expect(r.status, context(results)).toBe(1)
            expect(r.stderr, context(results)).toContain("race/a was stopped while starting")
          }
        })
        const entry = await daemonEntry(sb.stateDir, "race/a")
        const now = daemonPids(sb.stateDir, "race/a")
        expect(isAlive(first[0]!), context(results)).toBe(false)
        if (entry?.status.type === "running") expect(now, context(results)).toEqual([entry.pid])
        else {
          expect(entry?.status.type, context(results)).toBe("stopped")
          expect(now, context(results)).toEqual([])
        }

        // make sure it runs, then 10 stops at once: one stops it, the others find it stopped
        expect((await sb.cliAsync(["start", "a"], proj)).status).toBe(0)
        const pid = daemonPids(sb.stateDir, "race/a")[0]!
        const stops = await all(10, ["stop", "a", "--json"])
        for (const r of stops) expect(r.status, context(stops)).toBe(0)
        const said = stops.map((r) => JSON.parse(r.stdout) as Array<{ was_running: boolean }>)
        // the stops are taken in turn: the first stops it, the others find it stopped
        expect(said.filter((s) => s[0]?.was_running).length, context(stops)).toBe(1)
        expect(leftOf(pid), context(stops)).toEqual([])
        expect(daemonPids(sb.stateDir, "race/a"), context(stops)).toEqual([])
        expect((await daemonEntry(sb.stateDir, "race/a"))?.status.type).toBe("stopped")
        expect(supervisorPids(sb.stateDir)).toHaveLength(1)
      }
    },
    T * ROUNDS,
  )
})
