/**
 * The quick client of `supervisor logs` (src/quick/logs.ts): which arguments it takes on, and
 * what it does with each answer of a (fake) supervisor on a real Unix socket: the text is copied
 * as it comes, a `Fallback` leaves the command to the CLI with nothing printed, and an answer that
 * breaks off is an error, never a shorter log.
 */
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { parseLogsArgs, quickLogs } from "../../src/quick/logs.js"
import { makeFakeSupervisor } from "./fakeSupervisor.js"

describe("parseLogsArgs", () => {
  const plain = { id: "web", lines: 100, raw: false, noTimestamp: false }
  it.each([
    [["web"], plain],
    [["web", "-n", "5"], { ...plain, lines: 5 }],
    [["-n5", "web"], { ...plain, lines: 5 }],
    [["web", "--lines", "0"], { ...plain, lines: 0 }],
    [["web", "--lines=1000000"], { ...plain, lines: 1_000_000 }],
    [["app/web", "--raw", "--no-timestamp"], { ...plain, id: "app/web", raw: true, noTimestamp: true }],
    [["web", "--strip-ansi"], { ...plain, raw: true }],
  ])("%j is taken on", (args, expected) => {
    expect(parseLogsArgs(args)).toEqual(expected)
  })

  it.each([
    [[]],
    [["web", "db"]],
    [["web", "-n", "-5"]],
    [["web", "-n"]],
    [["web", "-n", "5", "--lines", "6"]],
    [["web", "-n", "five"]],
    [["web", "--raw", "--raw"]],
    [["web", "--strip-ansi", "--raw"]],
    [["web", "--json"]],
    [["web", "-f"]],
    [["web", "--grep", "x"]],
    [["web", "--since", "5min"]],
    [["web", "--clear"]],
    [["--help"]],
  ])("%j is left to the CLI", (args) => {
    expect(parseLogsArgs(args)).toBeUndefined()
  })
})

describe("quickLogs", () => {
  const fake = makeFakeSupervisor("quick-logs")
  beforeEach(fake.start)
  afterEach(fake.stop)

  it("asks for the lines as typed and copies the text as it comes", async () => {
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      res.write("one\ntw")
      setTimeout(() => res.end("o\nthree\n"), 20)
    }
    expect(await quickLogs(["web", "-n", "3", "--raw", "--no-timestamp"])).toBe(0)
    expect(fake.received).toEqual([
      expect.objectContaining({
        path: "/api/cli/logs/text-from",
        id: "web",
        lines: 3,
        raw: true,
        timestamps: false,
        cwd: process.cwd(),
      }),
    ])
    expect(fake.written).toEqual({ stdout: "one\ntwo\nthree\n", stderr: "" })
    expect(process.exitCode).toBeUndefined()
  })

  it("leaves the command to the CLI on a Fallback, another answer, or when nobody answers", async () => {
    fake.answer = (res) => {
      res.writeHead(409, { "content-type": "application/json" })
      res.end(JSON.stringify({ _tag: "Fallback", message: "no daemon named web" }))
    }
    expect(await quickLogs(["web", "--no-timestamp"])).toBe(false)
    fake.answer = (res) => {
      res.writeHead(404)
      res.end()
    }
    expect(await quickLogs(["web", "--no-timestamp"])).toBe(false)
    expect(await quickLogs(["web", "--json"])).toBe(false)
    expect(fake.received).toHaveLength(2) // the last one was never sent
    fake.server?.close()
    process.env.SUPERVISOR_STATE_DIR = join(fake.dir, "elsewhere")
    expect(await quickLogs(["web"])).toBe(false)
    expect(fake.written).toEqual({ stdout: "", stderr: "" })
    expect(process.exitCode).toBeUndefined()
  })

  it("waits for a slow reader: one wait for drain at a time, and every line in order", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}\n`)
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      // 40 chunks that come in one or a few socket reads
      for (const line of lines) res.write(line)
      res.end()
    }
    // stdout as a full pipe: every write asks to wait, and `drain` comes a moment later
    let waits = 0
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      fake.written.stdout += Buffer.from(chunk).toString()
      waits = Math.max(waits, process.stdout.listenerCount("drain"))
      setTimeout(() => process.stdout.emit("drain"), 1)
      return false
    })
    expect(await quickLogs(["web", "--raw", "--no-timestamp"])).toBe(0)
    expect(fake.written.stdout).toBe(lines.join(""))
    expect(waits).toBeLessThanOrEqual(1)
    // the last write's wait ends with the next drain
    await new Promise((r) => setTimeout(r, 20))
    expect(process.stdout.listenerCount("drain")).toBe(0)
  })

  it("says so, with exit status 1, when the text breaks off", async () => {
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      res.write("one\n")
      setTimeout(() => res.socket?.destroy(), 20)
    }
    expect(await quickLogs(["web", "--no-timestamp"])).toBe(1)
    expect(fake.written.stdout).toBe("one\n")
    expect(fake.written.stderr).toMatch(/the supervisor stopped answering before the last line/)
    expect(process.exitCode).toBeUndefined() // the launcher applies the status
  })
})
