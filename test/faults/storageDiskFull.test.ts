import { mkdirSync, readFileSync, statfsSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  isAlive,
  makeDaemonSandbox,
  storedLogs,
  waitFor,
} from "../e2e/harness.js"
import {
  fillToTheBrim,
  isRoot,
  mountTmpfs,
  onlySupervisor,
  problems,
  ROUNDS,
  run,
  setFaults,
  tickerProject,
  tickGaps,
  umount,
  waitClear,
  withFaults,
} from "./storageFixture.js"

// A full disk must never kill the supervisor: its daemons stay supervised, failed writes are
// counted and said, nothing already written is lost, and it recovers when space is freed.

let sb: DaemonSandbox | undefined
let mounted: string | undefined
afterEach(() => {
  // the supervisor stops before its state dir is unmounted, and that before the tree is removed
  if (mounted !== undefined && sb !== undefined) sb.cli(["supervisor", "stop"], sb.root)
  if (mounted !== undefined) umount(mounted)
  sb?.destroy()
  sb = undefined
  mounted = undefined
})

describe("a full disk", () => {
  it("injected ENOSPC on every write of the state dir: the supervisor runs on, says it, and recovers", async () => {
    sb = makeDaemonSandbox()
    const faults = withFaults(sb)
    const app = tickerProject(sb)
    expect(sb.cli(["start", "ticker"], app).status).toBe(0)
    const supervisor = onlySupervisor(sb)
    for (let round = 0; round < ROUNDS; round++) {
      setFaults(faults, [`ENOSPC ${sb.stateDir}/`])
      // a restart writes the state, a supervisor line in the log, and the supervisor log
      const restarted = sb.cli(["restart", "ticker"], app)
      expect(restarted.status, restarted.stderr).toBe(0)
      const seen = await waitFor("state and log writes counted", async () => {
        const p = (await problems(sb!.stateDir)) ?? []
        return ["state", "logs"].every((a) => p.some((x) => x.area === a && x.code === "ENOSPC"))
          ? p
          : undefined
      })
      expect(seen.find((p) => p.area === "state")?.message).toContain("the disk is full: free space on")
      const status = sb.cli(["supervisor", "status"], app)
      expect(status.stdout).toMatch(
        /storage {2}cannot write the state file .*state\.json \(ENOSPC\); the disk is full/,
      )
      expect(onlySupervisor(sb)).toBe(supervisor)
      expect((await daemonEntry(sb.stateDir, "app/ticker"))?.status.type).toBe("running")
      setFaults(faults, [])
      await waitClear(sb.stateDir)
    }
    const entry = await daemonEntry(sb.stateDir, "app/ticker")
    const messages = (await storedLogs(sb.stateDir, "app/ticker")).map((e) => e.message)
    // every tick the daemon wrote is there, and the supervisor said that writes failed and work again
    expect(tickGaps(messages)).toEqual([])
    expect(messages.filter((m) => m.startsWith("tick ")).length).toBeGreaterThan(50)
    expect(
      messages.some((m) =>
        /^\[supervisor\] \d+ write\(s\) to .* failed from .* \(ENOSPC\); it is writable again$/.test(m),
      ),
    ).toBe(true)
    expect(readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")).toMatch(
      /write\(s\) to .*supervisor\.log failed/,
    )
    expect(JSON.parse(readFileSync(join(sb.stateDir, "state.json"), "utf8")).daemons["app/ticker"].pid).toBe(
      entry?.pid,
    )
  }, 60_000)

  it.runIf(isRoot)(
    "(root) the state dir on a 4 MB tmpfs, a daemon writing 8 MB: the supervisor survives and recovers",
    async () => {
      sb = makeDaemonSandbox()
      mkdirSync(sb.stateDir, { recursive: true })
      mountTmpfs(sb.stateDir, "4m")
      mounted = sb.stateDir
      const app = sb.project(
        "app",
        `[daemons.flood]\nrun = "sh -c 'L=$(printf %01000d 0); i=0; while [ $i -lt 8192 ]; do echo $i-$L; i=$((i+1)); done; exec sleep 1000'"\n` +
          // its output goes to the supervisor log: a line of it on every restart
          `[daemons.flood.hooks]\non_stop = "echo stopped"\n`,
      )
      expect(sb.cli(["start", "flood"], app).status).toBe(0)
      const supervisor = onlySupervisor(sb)
      const full = () => statfsSync(sb!.stateDir).bavail === 0
      await waitFor("the tmpfs full", full, { timeout: 20_000 })
      // the supervisor log's last block too: its next line fails (which killed it before)
      fillToTheBrim(join(sb.stateDir, "logs", "supervisor.log"))
      // a restart writes the state, log lines and the supervisor log on a full disk
      for (let i = 0; i < ROUNDS; i++) {
        const r = sb.cli(["restart", "flood"], app)
        expect(r.status, r.stderr).toBe(0)
        expect(isAlive(supervisor)).toBe(true)
      }
      await waitFor("the failures counted", async () =>
        ((await problems(sb!.stateDir)) ?? []).some((p) => p.code === "ENOSPC"),
      )
      expect(sb.cli(["supervisor", "status"], app).stdout).toContain(
        "the disk is full: free space on the file system of",
      )
      expect(onlySupervisor(sb)).toBe(supervisor)
      const pid = (await daemonEntry(sb.stateDir, "app/flood"))?.pid
      expect(pid !== null && pid !== undefined && isAlive(pid)).toBe(true)
      // space comes back: the supervisor catches up on its own
      run("mount", ["-o", "remount,size=64m", sb.stateDir])
      await waitClear(sb.stateDir, 20_000)
      const raw = readFileSync(join(sb.stateDir, "logs", "app--flood.out"), "utf8")
      const written = raw.split("\n").filter((l) => /^\d+-0+$/.test(l)).length
      const stored = (await storedLogs(sb.stateDir, "app/flood")).filter((e) =>
        /^\d+-0+$/.test(e.message),
      ).length
      expect(stored).toBe(written) // every line that reached the disk is indexed
      expect(JSON.parse(readFileSync(join(sb.stateDir, "state.json"), "utf8")).daemons["app/flood"].pid).toBe(
        pid,
      )
    },
    90_000,
  )
})
