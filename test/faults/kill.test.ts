/**
 * The supervisor SIGKILLed at random points: each round picks (from the seed) an operation on a
 * 20-daemon project and a delay, kills the supervisor that long into it, brings up a new one with
 * a CLI command and checks that every live daemon is tracked once, the flood's lines are all
 * stored and the state file loads. `FAULT_ROUNDS=100` (npm run test:faults) for the full run.
 */
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  isAlive,
  makeDaemonSandbox,
  spawnCli,
  supervisorPids,
  waitFor,
} from "../e2e/harness.js"
import {
  checkFlood,
  DAEMONS,
  daemonRoots,
  FILES,
  NAMESPACE,
  snapshot,
  stateFileLoads,
} from "./killProject.js"

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 3)
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000)

/** mulberry32: a small seeded generator, so that a failing seed replays the same rounds. */
const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

type Op = "start-all" | "stop" | "restart" | "retry" | "flood" | "watch" | "cron"
const OPS: ReadonlyArray<Op> = ["start-all", "stop", "restart", "retry", "flood", "watch", "cron"]
/** The longest kill delay per operation (ms): long enough to land inside its slow part. */
const MAX_DELAY: Record<Op, number> = {
  "start-all": 1500,
  stop: 600,
  restart: 800,
  retry: 1800,
  flood: 500,
  watch: 900,
  cron: 1000,
}

let sb: DaemonSandbox
let proj: string
const counts = { rounds: 0, kills: 0, readopted: 0, lines: 0 }
/** Flood runs verified: finished ones (never read again) and the live ones' latest count. */
const doneFlood = new Map<number, number>()
const liveFlood = new Map<number, number>()

beforeAll(async () => {
  sb = makeDaemonSandbox()
  // quick stops, watch restarts and ready polls: more of each fits in a round
  Object.assign(sb.env, {
    SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "2s",
    SUPERVISOR_SUPERVISOR_FILE_WATCH_DEBOUNCE: "200ms",
    SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL: "100ms",
  })
  proj = sb.dir(NAMESPACE)
  const files: Record<string, string> = { [`${NAMESPACE}/pids/.keep`]: "" }
  for (const [name, text] of Object.entries(FILES)) files[`${NAMESPACE}/${name}`] = text
  sb.write(files)
  const r = spawnCli(["start", "--all"], { cwd: proj, env: sb.env })
  const exit = await r.exited
  expect(exit.code, r.stdout() + r.stderr()).toBe(0)
}, 60_000)

afterAll(() => {
  console.log(
    `kill rounds: seed ${SEED}, ${counts.rounds} rounds, ${counts.kills} kills, ` +
      `${counts.readopted} daemons re-adopted, ` +
      `${counts.lines + [...liveFlood.values()].reduce((a, b) => a + b, 0)} flood lines checked`,
  )
  sb.destroy()
}, 30_000)

/** Runs one round's operation; returns its CLI (if it has one) so that the round can wait for it. */
const operate = (op: Op, pick: () => number) => {
  const some = () => DAEMONS[Math.floor(pick() * DAEMONS.length)]!
  const cli = (...args: Array<string>) => spawnCli(args, { cwd: proj, env: sb.env })
  switch (op) {
    case "start-all":
      return cli("start", "--all")
    case "stop":
      return pick() < 0.3 ? cli("stop", "--all") : cli("stop", some(), some())
    case "restart":
      return cli("restart", some())
    case "retry":
      return cli("restart", pick() < 0.5 ? "crashy1" : "crashy2")
    case "flood":
      writeFileSync(join(proj, "flood.go"), "")
      return cli("start", "flood")
    case "watch":
      writeFileSync(join(proj, "watched.txt"), `${Date.now()}\n`)
      return cli("start", "watched")
    case "cron":
      return undefined
  }
}

/** Waits until every live daemon is tracked once and the flood's lines are stored; throws otherwise. */
const settle = async (round: string) => {
  let last: ReadonlyArray<string> = []
  const snap = await waitFor(
    `every live daemon tracked once (${round})`,
    async () => {
      const s = await snapshot(sb.stateDir, proj)
      last = s.problems
      return s.problems.length === 0 ? s : undefined
    },
    { timeout: 15_000, interval: 100 },
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${last.join("\n")}`)
  })
  let floodProblems: ReadonlyArray<string> = []
  await waitFor(
    `every flood line stored (${round})`,
    async () => {
      const { problems, verified } = await checkFlood(sb.stateDir, proj, doneFlood)
      floodProblems = problems
      if (problems.length > 0) return false
      for (const [pid, n] of verified) {
        liveFlood.set(pid, n)
        if (isAlive(pid)) continue
        // a finished run is verified once and for all
        doneFlood.set(pid, n)
        liveFlood.delete(pid)
        counts.lines += n
      }
      return true
    },
    { timeout: 10_000, interval: 200 },
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${floodProblems.join("\n")}`)
  })
  return snap
}

describe("the supervisor SIGKILLed at random points", () => {
  it(
    `${ROUNDS} rounds (seed ${SEED}): every live daemon re-adopted once, no flood line lost, the state file loads`,
    async () => {
      const pick = random(SEED)
      for (let round = 1; round <= ROUNDS; round++) {
        const op = OPS[Math.floor(pick() * OPS.length)]!
        const delay = Math.floor(pick() * MAX_DELAY[op])
        const label = `seed ${SEED}, round ${round}: ${op}, kill after ${delay} ms`
        const [supervisor] = await waitFor(`a supervisor (${label})`, () => {
          const pids = supervisorPids(sb.stateDir)
          return pids.length === 1 ? pids : undefined
        })
        const running = operate(op, pick)
        await new Promise((r) => setTimeout(r, delay))
        process.kill(supervisor!, "SIGKILL")
        counts.kills++
        await waitFor(`the supervisor to be gone (${label})`, () => !isAlive(supervisor!))
        const atKill = daemonRoots(sb.stateDir)
        expect(stateFileLoads(sb.stateDir), label).toBeUndefined()
        // the interrupted command ends (it may bring a new supervisor up itself)
        if (running !== undefined)
          await Promise.race([
            running.exited,
            new Promise((_, reject) =>
              setTimeout(() => reject(new Error(`${label}: the command did not end`)), 20_000),
            ),
          ])
        const list = spawnCli(["list", "--json"], { cwd: proj, env: sb.env })
        const listed = await list.exited
        expect(listed.code, `${label}: ${list.stderr()}`).toBe(0)
        const snap = await settle(label)
        expect(supervisorPids(sb.stateDir), label).toHaveLength(1)
        expect(stateFileLoads(sb.stateDir), label).toBeUndefined()
        expect(
          readdirSync(sb.stateDir).filter((f) => f.startsWith("state.json.corrupt-")),
          label,
        ).toEqual([])
        for (const [id, pids] of atKill) if (snap.tracked.get(id) === pids[0]) counts.readopted++
        counts.rounds++
      }
    },
    Math.max(60_000, ROUNDS * 30_000),
  )
})
