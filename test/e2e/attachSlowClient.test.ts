/**
 * An attached client that reads nothing while its daemon prints a million lines (docs/attach.md):
 * the stored log is exact, the supervisor's memory stays bounded, and the client, once it reads
 * again, is told how much output it missed: every byte was either sent or counted as dropped.
 */
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import WebSocket from "ws"
import {
  apiPost,
  type DaemonSandbox,
  type LogEntry,
  makeDaemonSandbox,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 120_000
const LINES = 1_000_000

let sb: DaemonSandbox
let proj: string

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "app",
    `
[daemons.flood]
run = "read go; seq 1 ${LINES}; exec sleep 300"
pty = true
ready_delay = 0.1
`,
  )
  expect((await sb.cliAsync(["start", "flood"], proj)).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)

it(
  "a client that reads nothing: the log stays exact, the supervisor's RSS bounded, the client told what it missed",
  async () => {
    const raw = join(sb.stateDir, "logs", "app--flood.out")
    const before = statSync(raw).size
    const supervisor = supervisorPids(sb.stateDir)[0]!
    const rssBefore = rssKiB(supervisor)
    const ws = new WebSocket(
      `ws+unix://${join(sb.stateDir, "sock", "api.sock")}:/api/daemons/app%2Fflood/attach`,
    )
    let received = 0
    const control: Array<{ _tag: string; bytes?: number }> = []
    ws.on("message", (data: Buffer, binary) => {
      if (!binary) control.push(JSON.parse(data.toString()))
      else received += data.length
    })
    await new Promise((ok) => ws.once("open", ok))
    await waitFor("Attached", () => control.some((m) => m._tag === "Attached"))
    ws.pause() // from now on the client reads nothing
    ws.send(Buffer.from("go\r"))
    let peak = rssBefore
    const last = await waitFor(
      "the last line stored",
      async () => {
        peak = Math.max(peak, rssKiB(supervisor))
        const tail = await apiPost<Array<LogEntry>>(sb.stateDir, "/api/cli/logs", {
          ids: ["app/flood"],
          lines: 2,
          regex: `^(1|${LINES})$`,
        })
        return tail?.length === 2 && tail[1]?.message === String(LINES) ? tail : undefined
      },
      { timeout: 90_000, interval: 50 },
    )
    // every line between the first and the last has its entry: no line lost or doubled
    expect(last[1]!.id - last[0]!.id).toBe(LINES - 1)
    const text = readFileSync(raw, "utf8")
    expect(text.slice(text.indexOf("\n1\n") + 1)).toBe(
      `${Array.from({ length: LINES }, (_, i) => String(i + 1)).join("\n")}\n`,
    )
    const growthMiB = (peak - rssBefore) / 1024
    expect(growthMiB).toBeLessThan(48)
    // reading again: what was skipped is counted, and the rest arrives
    ws.resume()
    const after = statSync(raw).size
    // the recent screen (at most what the file held before) came first
    const screen = (dropped: number) => received + dropped - (after - before)
    await waitFor("every byte sent or counted", () => {
      const dropped = control.filter((m) => m._tag === "Dropped").reduce((n, m) => n + (m.bytes ?? 0), 0)
      return screen(dropped) >= 0 && screen(dropped) <= before ? true : undefined
    })
    expect(control.some((m) => m._tag === "Dropped" && (m.bytes ?? 0) > 0)).toBe(true)
    ws.close()
    console.log(
      `supervisor RSS during the flood: +${growthMiB.toFixed(1)} MiB (from ${(rssBefore / 1024).toFixed(1)} MiB)`,
    )
  },
  T,
)
