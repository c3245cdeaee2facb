/**
 * Retries through the built CLI: every run appends its SUPERVISOR_RETRY_COUNT and a timestamp to
 * a file, so the test checks the count, the order and the backoff gaps (lower bounds only: the
 * supervisor waits at least 1 s, then 2 s; a loaded machine only makes the gaps longer).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"

const T = 30_000
let sb: DaemonSandbox
let dir: string

const runs = (file: string) => {
  const path = join(dir, file)
  if (!existsSync(path)) return []
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => {
      const [count, ms] = l.split(" ")
      return { count: Number(count), at: Number(ms) }
    })
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.flaky]
run = 'echo "$SUPERVISOR_RETRY_COUNT $(date +%s%3N)" >> flaky.runs; echo "attempt $SUPERVISOR_RETRY_COUNT failed"; exit 5'
retry = 2

[daemons.crashy]
run = 'echo "$SUPERVISOR_RETRY_COUNT $(date +%s%3N)" >> crashy.runs; if [ "$SUPERVISOR_RETRY_COUNT" = 0 ]; then sleep 1; exit 9; fi; exec sleep 300'
ready_delay = 0.2
retry = 1
`,
  )
})
afterAll(() => sb.destroy())

describe("retries (e2e)", () => {
  it(
    "a daemon failing before it is ready is retried N times with 1 s, 2 s backoff, then the start fails",
    () => {
      const r = sb.cli(["start", "flaky"], dir)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain("app/flaky failed to start: app/flaky exited with code 5 (after 2 retries)")
      expect(r.stderr).toContain("attempt 2 failed")
      expect(r.stderr).not.toMatch(STACK_LINE)
      const seen = runs("flaky.runs")
      expect(seen.map((s) => s.count)).toEqual([0, 1, 2])
      expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000)
      expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(2000)
    },
    T,
  )

  it(
    "a daemon that crashes while running is restarted after the backoff, with the retry count raised",
    async () => {
      const r = sb.cli(["start", "crashy"], dir)
      expect(r.status, r.stderr).toBe(0)
      const entry = await waitFor(
        "the retry to be running",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/crashy")
          return e?.retry_count === 1 && e.status.type === "running" ? e : undefined
        },
        { timeout: 15_000 },
      )
      expect(entry.pid).not.toBeNull()
      const seen = runs("crashy.runs")
      expect(seen.map((s) => s.count)).toEqual([0, 1])
      // ran ~1 s, then waited at least the 1 s backoff
      expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(2000)
    },
    T,
  )
})
