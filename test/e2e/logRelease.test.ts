/**
 * A daemon's log files are open only while it runs (the built CLI): a stop, or a crash with no
 * retry left, indexes the rest of its output (a last line without a newline too) and closes its
 * files; a start opens them again. A supervisor that ran hundreds of daemons holds no files for
 * those that stopped.
 */
import { readdirSync, readlinkSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, storedLogs, supervisorPids, waitFor } from "./harness.js"

const T = 60_000
const N = 10

let sb: DaemonSandbox
let dir: string

/** The daemon log files (`app--<name>.out`, `.idx`) the supervisor holds open, by name. */
const openLogFiles = (): Array<string> => {
  const [pid] = supervisorPids(sb.stateDir)
  if (pid === undefined) throw new Error("no supervisor")
  const out: Array<string> = []
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const m = /\/logs\/app--([\w-]+)\.(out|idx)$/.exec(target)
      if (m !== null) out.push(`${m[1]}.${m[2]}`)
    } catch {}
  }
  return out.sort()
}
const openFor = (name: string) => openLogFiles().filter((f) => f.startsWith(`${name}.`))

const expectOk = (args: Array<string>) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(0)
  return r
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  const daemons = Array.from(
    { length: N },
    (_, i) => `[daemons.d${i}]\nrun = "echo hi-${i}; exec sleep 300"\nready_output = "hi-${i}"\n`,
  )
  dir = sb.project(
    "app",
    `${daemons.join("\n")}\n[daemons.crash]\nrun = "echo first; printf 'last words'; exit 3"\nretry = 0\n`,
  )
}, T)
afterAll(() => sb?.destroy())

describe("log files of stopped daemons (e2e)", () => {
  it(
    "are closed at a stop, their lines kept, and opened again at the next start",
    async () => {
      expectOk(["start", ...Array.from({ length: N }, (_, i) => `d${i}`)])
      // each running daemon's raw file and index are open
      await waitFor("the followers of the running daemons", () => openLogFiles().length >= 2 * N || undefined)
      expectOk(["stop", ...Array.from({ length: N }, (_, i) => `d${i}`)])
      await waitFor("every daemon log file closed", () => openLogFiles().length === 0 || undefined, {
        timeout: 15_000,
      })
      // nothing was lost: each log has its line and the stop
      for (let i = 0; i < N; i++) {
        const messages = (await storedLogs(sb.stateDir, `app/d${i}`)).map((e) => e.message)
        expect(messages[0], `d${i}`).toBe(`hi-${i}`)
        expect(messages.length, `d${i}: ${messages.join(" | ")}`).toBeGreaterThanOrEqual(1)
      }
      // a start follows again, after the lines of the earlier run
      expectOk(["start", "d3"])
      await waitFor("d3's files open again", () => openFor("d3").length === 2 || undefined)
      await waitFor("d3's second line", async () =>
        (await storedLogs(sb.stateDir, "app/d3")).filter((e) => e.message === "hi-3").length === 2
          ? true
          : undefined,
      )
      expect(openLogFiles().filter((f) => !f.startsWith("d3."))).toEqual([])
      expectOk(["stop", "d3"])
    },
    T,
  )

  it(
    "a crash with no retry left: its last line without a newline is stored, and its files closed",
    async () => {
      const r = sb.cli(["start", "crash"], dir)
      expect(r.status).toBe(1)
      await waitFor("crash's files closed", () => openFor("crash").length === 0 || undefined, {
        timeout: 15_000,
      })
      const messages = (await storedLogs(sb.stateDir, "app/crash")).map((e) => e.message)
      expect(messages.slice(0, 2)).toEqual(["first", "last words"])
      const logs = sb.cli(["logs", "crash", "--no-timestamp"], dir)
      expect(logs.stdout).toContain("last words")
    },
    T,
  )
})
