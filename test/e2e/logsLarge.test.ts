/**
 * `logs -n N` with many lines: streamed from the supervisor (ndjson) and printed as it arrives,
 * complete and in order, as text and as one JSON array.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000
const N = 50_000
let sb: DaemonSandbox
let dir: string

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project("big", `[daemons.seq]\nrun = "exec seq 1 ${N}"\nready_delay = 0\n`)
  expect(sb.cli(["start", "seq"], dir).status).toBe(0)
  await waitFor(
    "all lines stored",
    async () => (await storedLogs(sb.stateDir, "big/seq", 1)).at(-1)?.id === N,
    {
      timeout: 30_000,
    },
  )
}, T)
afterAll(() => sb.destroy())

describe("logs -n N (streamed)", () => {
  it(
    "prints every requested line, in order",
    async () => {
      const r = await sb.cliAsync(["logs", "seq", "-n", String(N), "--no-timestamp"], dir)
      expect(r.status, r.stderr).toBe(0)
      const lines = r.stdout.trimEnd().split("\n")
      expect(lines).toHaveLength(N)
      expect(lines[0]).toBe("1")
      expect(lines[N - 1]).toBe(String(N))
      expect(lines.every((l, i) => l === String(i + 1))).toBe(true)
    },
    T,
  )

  it(
    "--json is one JSON array of the entries (the last N)",
    async () => {
      const r = await sb.cliAsync(["logs", "seq", "-n", "20000", "--json"], dir)
      expect(r.status, r.stderr).toBe(0)
      const entries = JSON.parse(r.stdout) as Array<{ id: number; message: string; daemon_id: string }>
      expect(entries).toHaveLength(20_000)
      expect(entries[0]).toMatchObject({ id: N - 19_999, message: String(N - 19_999), daemon_id: "big/seq" })
      expect(entries.at(-1)?.id).toBe(N)
      const none = await sb.cliAsync(["logs", "seq", "-n", "5", "--grep", "no such text", "--json"], dir)
      expect(JSON.parse(none.stdout)).toEqual([])
    },
    T,
  )
})
