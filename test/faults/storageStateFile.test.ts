import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { stateOnDisk } from "../../src/state/stateFile.js"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "../e2e/harness.js"
import { onlySupervisor, problems, ROUNDS, tickerProject, waitClear } from "./storageFixture.js"

// The state file truncated, emptied, filled with garbage, or made unwritable (a directory in its
// place stops root too): the supervisor starts or runs on, says what is wrong and the fix, keeps
// the corrupt file aside, and recovers when the fault is removed.

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

const CORRUPTIONS: ReadonlyArray<readonly [string, (valid: string) => string]> = [
  ["truncated", (valid) => valid.slice(0, Math.floor(valid.length / 2))],
  ["emptied", () => ""],
  ["garbage", () => "\u0000\u00ff{not json at all"],
]

describe("the state file", () => {
  it("truncated, emptied or garbage at start: kept aside, said in status and the log, the supervisor runs", async () => {
    sb = makeDaemonSandbox()
    const app = tickerProject(sb)
    const stateFile = join(sb.stateDir, "state.json")
    // bounded: one of them (test/state/StateStore.test.ts has all three); FAULT_ROUNDS cycles through them
    for (let round = 0; round < ROUNDS; round++) {
      const [name, corrupt] = CORRUPTIONS[round % CORRUPTIONS.length]!
      expect(sb.cli(["start", "ticker"], app).status).toBe(0)
      expect(sb.cli(["supervisor", "stop"], app).status).toBe(0)
      const bad = corrupt(readFileSync(stateFile, "utf8"))
      writeFileSync(stateFile, bad)
      const started = sb.cli(["start", "ticker"], app)
      expect(started.status, `${name}: ${started.stderr}`).toBe(0)
      const status = sb.cli(["supervisor", "status", "--json"], app)
      const [problem] = JSON.parse(status.stdout).storage_problems
      expect(problem, name).toMatchObject({ area: "state", code: "corrupt", file: stateFile })
      const aside = readdirSync(sb.stateDir).filter((f) => f.startsWith("state.json.corrupt-"))
      const kept = join(sb.stateDir, aside.at(-1)!)
      expect(readFileSync(kept, "utf8"), name).toBe(bad) // nothing of it overwritten
      expect(problem.message).toContain(kept)
      expect(problem.message).toContain("look into that file, then delete it")
      expect(sb.cli(["supervisor", "status"], app).stdout).toContain(
        `storage  the state file ${stateFile} was not valid`,
      )
      expect(readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")).toContain(
        `it was kept as ${kept}`,
      )
      // a fresh state file is written and loads
      await waitFor("a valid state file", () => {
        const read = stateOnDisk(stateFile)
        return read._tag === "Loaded" && read.state.daemons["app/ticker"] !== undefined
      })
      rmSync(kept)
    }
  }, 60_000)

  it("garbage or a directory in its place while running: the supervisor runs on, says it, and rewrites it", async () => {
    sb = makeDaemonSandbox()
    const app = tickerProject(sb)
    const stateFile = join(sb.stateDir, "state.json")
    expect(sb.cli(["start", "ticker"], app).status).toBe(0)
    const supervisor = onlySupervisor(sb)
    // garbage: memory is the truth, the next change rewrites the whole file
    writeFileSync(stateFile, "garbage")
    expect(sb.cli(["restart", "ticker"], app).status).toBe(0)
    await waitFor("the state file rewritten", () => readFileSync(stateFile, "utf8").startsWith("{"))
    // a directory in its place: unwritable even for root
    rmSync(stateFile)
    mkdirSync(stateFile)
    expect(sb.cli(["restart", "ticker"], app).status).toBe(0)
    const problem = await waitFor("the failure said", async () =>
      ((await problems(sb!.stateDir)) ?? []).find((p) => p.area === "state"),
    )
    expect(problem.message).toContain(`${stateFile} is a directory: move it away`)
    expect(sb.cli(["supervisor", "status"], app).stdout).toContain("is a directory: move it away")
    expect(onlySupervisor(sb)).toBe(supervisor)
    const pid = (await daemonEntry(sb.stateDir, "app/ticker"))?.pid
    rmdirSync(stateFile)
    await waitClear(sb.stateDir)
    expect(existsSync(stateFile)).toBe(true)
    expect(JSON.parse(readFileSync(stateFile, "utf8")).daemons["app/ticker"].pid).toBe(pid)
    expect(readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")).toMatch(
      /state\.json failed from .* \(EISDIR\); it is writable again/,
    )
  }, 60_000)
})
