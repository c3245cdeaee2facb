/**
 * A watch restart and a cron `always` restart of one daemon racing, with real processes: the cron
 * restarts it every second while the test writes its watched file again and again, and the
 * daemon takes a moment to stop (its TERM trap). Sampled all along, there is never more than one
 * process of the daemon; once the writes end, the one process is the pid `list --json` gives.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000
const MARKER = "cron-watch-race-marker"
let sb: DaemonSandbox
let dir: string

/**
 * The daemon's runs alive now: live process-group leaders whose command line carries the marker
 * (each run is a group of its own; a child the shell forks shows its command line until it execs).
 */
const markedPids = (): Array<number> => {
  const out: Array<number> = []
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue
    try {
      if (!readFileSync(`/proc/${d}/cmdline`, "utf8").includes(MARKER)) continue
      const stat = readFileSync(`/proc/${d}/stat`, "utf8")
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (state !== "Z" && state !== "X" && Number(pgrp) === Number(d)) out.push(Number(d))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    [
      "[daemons.racy]",
      // a stop takes a moment: the trap sleeps before it exits
      `run = "echo ${MARKER} >/dev/null; trap 'sleep 0.3; exit 0' TERM; while :; do sleep 0.1; done"`,
      "ready_delay = 0.1",
      'watch = ["watched.txt"]',
      'cron = { schedule = "* * * * * *", retrigger = "always" }',
      "",
    ].join("\n"),
  )
  writeFileSync(join(dir, "watched.txt"), "0\n")
  expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("cron always and watch racing (e2e)", () => {
  it(
    "restarts by both, interleaved, never give two processes; after the writes, one process runs",
    async () => {
      const id = "app/racy"
      const lines = async () => (await storedLogs(sb.stateDir, id)).map((e) => e.message)
      // the project becomes known: the cron starts the daemon, its watcher opens
      expect(sb.cli(["list"], dir).status).toBe(0)
      await waitFor(
        "the watcher of app/racy",
        async () => (await lines()).some((l) => l.startsWith("[supervisor] watch: watching")),
        { timeout: 15_000, interval: 100 },
      )
      let most = 0
      const seen = new Set<number>()
      const sample = () => {
        const pids = markedPids()
        for (const p of pids) seen.add(p)
        most = Math.max(most, pids.length)
      }
      const sampler = setInterval(sample, 10)
      try {
        // writes 1.3 s apart (more than the 1 s debounce): each is a watch restart, landing
        // anywhere among the cron's, one a second
        for (let i = 1; i <= 6; i++) {
          writeFileSync(join(dir, "watched.txt"), `${i}\n`)
          await new Promise((r) => setTimeout(r, 1_300))
        }
        await waitFor(
          "restarts by both watch and cron",
          async () => {
            const l = await lines()
            return (
              l.filter((x) => x.startsWith("[supervisor] restarting: watch")).length >= 3 &&
              l.filter((x) => x.startsWith("[supervisor] restarting: cron")).length >= 3
            )
          },
          { timeout: 10_000, interval: 100 },
        )
      } finally {
        clearInterval(sampler)
      }
      expect(seen.size).toBeGreaterThanOrEqual(4)
      expect(most).toBe(1)
      // between two cron restarts: one process, the one the supervisor reports
      const settled = await waitFor(
        "one running process of app/racy, the one list --json gives",
        async () => {
          const e = await daemonEntry(sb.stateDir, id)
          const pids = markedPids()
          return e?.status.type === "running" && pids.length === 1 && pids[0] === e.pid ? e : undefined
        },
        { timeout: 10_000, interval: 50 },
      )
      const listed = JSON.parse(sb.cli(["list", "--json"], dir).stdout) as Array<{
        id: { qualified: string }
        pid: number | null
      }>
      expect(markedPids().length).toBeLessThanOrEqual(1)
      expect(listed.find((e) => e.id.qualified === id)?.pid).toBeGreaterThan(0)
      expect(settled.pid).toBeGreaterThan(0)
    },
    T,
  )
})
