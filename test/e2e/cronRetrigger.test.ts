/**
 * Cron `retrigger = "success"` and `"fail"` through the built CLI with real processes: each job
 * exits with the code a file of the test holds, and runs on while a second file exists. Firings
 * are counted by the daemon's log; "a firing passed" is read from the state file, where the
 * supervisor records up to when each schedule was dealt with.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string

/** A job that says it ran, runs while `<name>.hold` exists, then exits with `<name>.code`. */
const job = (name: string, retrigger: string) =>
  [
    `[daemons.${name}]`,
    `run = "echo ${name}-ran; while [ -e ${name}.hold ]; do sleep 0.1; done; exit $(cat ${name}.code)"`,
    "ready_delay = 0",
    `cron = { schedule = "* * * * * *", retrigger = "${retrigger}" }`,
    "",
  ].join("\n")

const put = (file: string, text: string) => writeFileSync(join(dir, file), text)
const lines = async (id: string) => (await storedLogs(sb.stateDir, id)).map((e) => e.message)
const starts = async (id: string) =>
  (await lines(id)).filter((l) => l.startsWith("[supervisor] cron: starting")).length
const status = async (id: string) => (await daemonEntry(sb.stateDir, id))?.status.type

/** The instant up to which the supervisor dealt with the daemon's schedule (state file). */
const handled = (id: string): number => {
  const file = join(sb.stateDir, "state.json")
  if (!existsSync(file)) return 0
  try {
    const state = JSON.parse(readFileSync(file, "utf8")) as { cron?: Record<string, number> }
    return state.cron?.[id] ?? 0
  } catch {
    return 0 // read between the truncation and the write: the next poll reads it whole
  }
}

/** Waits until the schedule of `id` has dealt with `n` more firings (fired or skipped). */
const firingsPass = async (id: string, n: number) => {
  const from = Math.max(handled(id), Date.now() - 1_000)
  await waitFor(`${n} more firings of ${id}`, () => handled(id) >= from + n * 1_000, {
    timeout: 10_000,
    interval: 100,
  })
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project("app", `${job("ok", "success")}\n${job("bad", "fail")}`)
  put("ok.code", "0")
  put("bad.code", "1")
  expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
  // the project becomes known: its schedules are followed from now on
  expect(sb.cli(["list"], dir).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("cron retrigger success and fail (e2e)", () => {
  it(
    "success: runs again after a successful run, never while running, and not after a failed run",
    async () => {
      const id = "app/ok"
      // never ran, then exited 0: fired again and again (the note comes before the run's output)
      await waitFor(
        "two runs of app/ok",
        async () => (await starts(id)) >= 2 && (await lines(id)).filter((l) => l === "ok-ran").length >= 2,
        { timeout: 10_000, interval: 100 },
      )
      // a run that does not end: skipped while it runs
      put("ok.hold", "")
      const running = await waitFor(
        "app/ok skipped while running",
        async () =>
          (await lines(id)).includes(
            '[supervisor] cron: skipped (schedule "* * * * * *"): the previous run is still running (retrigger = "success")',
          )
            ? await daemonEntry(sb.stateDir, id).then((e) => (e?.status.type === "running" ? e : undefined))
            : undefined,
        { timeout: 10_000, interval: 100 },
      )
      expect(running.status.type).toBe("running")
      const count = await starts(id)
      await firingsPass(id, 2)
      expect(await starts(id)).toBe(count)
      expect((await daemonEntry(sb.stateDir, id))?.pid).toBe(running.pid)
      // the run fails: not fired again
      put("ok.code", "1")
      rmSync(join(dir, "ok.hold"))
      await waitFor("app/ok errored", async () => (await status(id)) === "errored", {
        timeout: 10_000,
        interval: 100,
      })
      await firingsPass(id, 3)
      expect(await starts(id)).toBe(count)
      expect(await status(id)).toBe("errored")
    },
    T,
  )

  it(
    "fail: the first run fires though it never ran, never while running, again after each failed run, not after a success",
    async () => {
      const id = "app/bad"
      // never ran: its first run is fired (as pitchfork does), then each failed run fires again
      await waitFor("two cron runs of app/bad", async () => (await starts(id)) >= 2, {
        timeout: 10_000,
        interval: 100,
      })
      expect((await lines(id)).filter((l) => l === "bad-ran").length).toBeGreaterThanOrEqual(1)
      expect((await lines(id)).some((l) => l.includes("it never ran"))).toBe(false)
      // a run that does not end: skipped while it runs
      put("bad.hold", "")
      const running = await waitFor(
        "app/bad skipped while running",
        async () =>
          (await lines(id)).includes(
            '[supervisor] cron: skipped (schedule "* * * * * *"): the previous run is still running (retrigger = "fail")',
          )
            ? await daemonEntry(sb.stateDir, id).then((e) => (e?.status.type === "running" ? e : undefined))
            : undefined,
        { timeout: 10_000, interval: 100 },
      )
      const during = await starts(id)
      await firingsPass(id, 2)
      expect(await starts(id)).toBe(during)
      expect((await daemonEntry(sb.stateDir, id))?.pid).toBe(running.pid)
      // the run fails (exit 1): fired again
      rmSync(join(dir, "bad.hold"))
      await waitFor("a cron run of app/bad after the failure", async () => (await starts(id)) > during, {
        timeout: 10_000,
        interval: 100,
      })
      // a run succeeds: not fired again
      put("bad.code", "0")
      await waitFor(
        "app/bad skipped after a success",
        async () =>
          (await lines(id)).includes(
            '[supervisor] cron: skipped (schedule "* * * * * *"): the last run succeeded (retrigger = "fail")',
          ),
        { timeout: 10_000, interval: 100 },
      )
      expect(await status(id)).toBe("stopped")
      const count = await starts(id)
      await firingsPass(id, 3)
      expect(await starts(id)).toBe(count)
      expect(await status(id)).toBe("stopped")
    },
    T,
  )
})
