/**
 * The supervisor SIGKILLed just after it spawned daemons, before their pids reached the state
 * file: the next supervisor must find those processes (by their output file, this state
 * directory's log of the daemon) and track them, never leave them running untracked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  isAlive,
  makeDaemonSandbox,
  spawnCli,
  supervisorPids,
  waitFor,
} from "../e2e/harness.js"
import { D_SH, daemonRoots, snapshot } from "./killProject.js"

const NS = "ks"
const NAMES = Array.from({ length: 8 }, (_, i) => `d${i}`)
/** Kill delays after the first daemon process appears: a short sweep, a long one in the full run. */
const DELAYS =
  process.env.FAULT_ROUNDS === undefined ? [0, 10, 30] : Array.from({ length: 31 }, (_, i) => i * 5)
const T = 30_000 + DELAYS.length * 5_000

let sb: DaemonSandbox
let proj: string

beforeAll(() => {
  sb = makeDaemonSandbox()
  proj = sb.dir(NS)
  const toml = [`namespace = "${NS}"`]
  for (const n of NAMES) toml.push(`[daemons.${n}]`, `run = "exec sh d.sh ${n}"`, "ready_delay = 0", "")
  sb.write({ [`${NS}/supervisor.toml`]: toml.join("\n"), [`${NS}/d.sh`]: D_SH, [`${NS}/pids/.keep`]: "" })
})
afterAll(() => sb.destroy(), 30_000)

const run = async (...args: Array<string>) => {
  const c = spawnCli(args, { cwd: proj, env: sb.env })
  const exit = await c.exited
  return { code: exit.code, out: c.stdout() + c.stderr() }
}

describe("a kill between spawn and the state write", () => {
  it(
    `every daemon spawned before the kill is tracked by the next supervisor (kills ${DELAYS.join(", ")} ms into a start)`,
    async () => {
      let untrackedRounds = 0
      let tracked = 0
      const problems: Array<string> = []
      for (const delay of DELAYS) {
        const stop = await run("stop", "--all")
        expect(stop.code, stop.out).toBe(0)
        const [supervisor] = await waitFor("one supervisor", () => {
          const pids = supervisorPids(sb.stateDir)
          return pids.length === 1 ? pids : undefined
        })
        const start = spawnCli(["start", "--all"], { cwd: proj, env: sb.env })
        // the start has reached the supervisor when a daemon process shows up: kill from there
        await waitFor("a daemon process", () => daemonRoots(sb.stateDir).size > 0, {
          timeout: 10_000,
          interval: 2,
        })
        await new Promise((r) => setTimeout(r, delay))
        process.kill(supervisor!, "SIGKILL")
        await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
        await start.exited
        const list = await run("list", "--json")
        expect(list.code, list.out).toBe(0)
        const settled = await waitFor(
          "a consistent view",
          async () => {
            const s = await snapshot(sb.stateDir, proj, NS)
            return s.problems.length === 0 ? s : undefined
          },
          { timeout: 5_000, interval: 100 },
        ).catch(async () => {
          untrackedRounds++
          problems.push(`kill ${delay} ms in: ${(await snapshot(sb.stateDir, proj, NS)).problems.join("; ")}`)
          return undefined
        })
        if (settled === undefined) break
        tracked += settled.tracked.size
      }
      console.log(`kill sweep: ${DELAYS.length} kills, ${tracked} daemon processes tracked after them`)
      expect(problems, `${untrackedRounds} rounds left daemons untracked`).toEqual([])
    },
    T,
  )
})
