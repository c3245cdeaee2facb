/**
 * `supervisor up` without a supervisor (src/cli/upWait.ts, src/cli/upSummary.ts): the wait follows
 * the Start command's events from a fake HTTP client (`wait: "events"` on the wire; the first
 * failure ends it with --exit-on-failure while the stream is still open), and the summary's rows,
 * exit status and text are made from how the wait ended and the listing.
 */
import type { HttpApiClient } from "@effect/platform"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { SupervisorClient } from "../../src/cli/client.js"
import { upRows, upStatus, upSummaryText } from "../../src/cli/upSummary.js"
import { type UpWait, waitForUp } from "../../src/cli/upWait.js"
import { Start } from "../../src/domain/Command.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"
import { entry } from "../tui/fixtures.js"

/** A client whose every request is answered with these ndjson lines; `open`: the stream never ends. */
const streaming = (lines: ReadonlyArray<unknown>, open = false) => {
  const sent: Array<unknown> = []
  const http = HttpClient.make((request) =>
    Effect.sync(() => {
      const raw = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
      sent.push(JSON.parse(raw))
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          for (const l of lines) controller.enqueue(new TextEncoder().encode(`${JSON.stringify(l)}\n`))
          if (!open) controller.close()
        },
      })
      return HttpClientResponse.fromWeb(
        request,
        new Response(body, { status: 200, headers: { "content-type": "application/x-ndjson" } }),
      )
    }),
  )
  // only the raw client is used by the sender
  const api = undefined as unknown as HttpApiClient.Client<never, never, never>
  const client = { api, http, socket: "fake" } as unknown as SupervisorClient["Type"]
  return { sent, provide: Effect.provideService(SupervisorClient, client) }
}

const start = new Start({ selection: { ids: [], all: false, files: "local" }, reason: "cli", wait: "events" })
const quiet = { timeout: Option.none(), exitOnFailure: false, progress: "none" } as const

const ready = (id: string, ports?: Array<number>): StartOutcome => ({
  _tag: "Ready",
  id,
  pid: 7,
  ...(ports ? { ports } : {}),
})
const failed: StartOutcome = {
  _tag: "StartFailed",
  id: "app/bad",
  message: "app/bad exited with code 1",
  exit_code: 1,
  signal: null,
  output: ["one", "two", "three", "cannot open config"],
  cli_status: 1,
}

describe("supervisor up: the wait", () => {
  it("sends Start with wait: events and ends with every outcome in start order, those that ran before too", async () => {
    const running: StartOutcome = { _tag: "AlreadyRunning", id: "app/cache", pid: 3 }
    const fake = streaming([
      { waiting: [{ id: "app/db", what: "port 5432" }] },
      { outcome: ready("app/db", [5432]) },
      { outcomes: [running, ready("app/db", [5432])] },
    ])
    const wait = await Effect.runPromise(waitForUp(start, quiet).pipe(fake.provide))
    expect(fake.sent).toEqual([expect.objectContaining({ _tag: "Start", wait: "events" })])
    expect(wait.ids).toEqual(["app/cache", "app/db"])
    expect(wait.timedOut).toBe(false)
    expect(wait.settled.get("app/db")?.ms).toBeGreaterThanOrEqual(0)
    // known only from the last event: no time of its own
    expect(wait.settled.get("app/cache")).toEqual({ outcome: running, ms: undefined })
  })

  it("--exit-on-failure: the first failure ends the wait while the start still streams", async () => {
    const fake = streaming(
      [
        {
          waiting: [
            { id: "app/db", what: "output matching /ready/" },
            { id: "app/bad", what: "1s" },
            { id: "app/web", what: "app/db to be ready" },
          ],
        },
        { outcome: failed },
      ],
      true,
    )
    const wait = await Effect.runPromise(
      waitForUp(start, { ...quiet, exitOnFailure: true }).pipe(fake.provide),
    )
    expect(wait.ids).toEqual(["app/db", "app/bad", "app/web"])
    expect([...wait.settled.keys()]).toEqual(["app/bad"])
    expect(wait.timedOut).toBe(false)
  })
})

const waited = (
  settled: ReadonlyArray<[StartOutcome, number | undefined]>,
  more: Partial<UpWait> = {},
): UpWait => ({
  ids: settled.map(([o]) => o.id),
  settled: new Map(settled.map(([o, ms]) => [o.id, { outcome: o, ms }])),
  timedOut: false,
  began: 0,
  elapsedMs: 1500,
  ...more,
})

describe("supervisor up: the summary", () => {
  it("all up: rows with their time to ready and ports, exit 0", () => {
    const wait = waited([
      [ready("app/db", [5432]), 400.4],
      [{ _tag: "Completed", id: "app/migrate" }, 900],
      [{ _tag: "AlreadyRunning", id: "app/cache", pid: 3 }, undefined],
    ])
    const rows = upRows(wait, [entry("app/cache", "running", { resolved_port: [6379] })], new Map(), "")
    expect(rows.map((r) => [r.id, r.status, r.ready_ms, r.ports])).toEqual([
      ["app/db", "ready", 400, [5432]],
      ["app/migrate", "completed", 900, []],
      ["app/cache", "running", null, [6379]],
    ])
    expect(upStatus(rows, wait.settled, false)).toBe(0)
    const text = upSummaryText(
      { ok: true, elapsed_ms: 1500, timed_out: false, daemons: rows, stopped: [] },
      undefined,
    )
    expect(text.at(-1)).toBe("✓ all 3 daemons are up after 1.5s")
  })

  it("a failure keeps its last 3 lines and its status; a daemon without an outcome is not ready", () => {
    const wait = waited([[failed, 200]], { ids: ["app/bad", "app/web"], timedOut: true })
    const rows = upRows(wait, [], new Map([["app/web", ["booting"]]]), "not ready when the wait timed out")
    expect(rows).toEqual([
      expect.objectContaining({
        id: "app/bad",
        status: "failed",
        ready_ms: null,
        output: ["two", "three", "cannot open config"],
      }),
      expect.objectContaining({
        id: "app/web",
        status: "not_ready",
        message: "not ready when the wait timed out",
        output: ["booting"],
      }),
    ])
    // the timeout's 124 is higher than the failure's 1
    expect(upStatus(rows, wait.settled, true)).toBe(124)
    expect(upStatus(rows.slice(0, 1), wait.settled, true)).toBe(1)
    const text = upSummaryText(
      { ok: false, elapsed_ms: 2000, timed_out: true, daemons: rows, stopped: [] },
      undefined,
    )
    expect(text.join("\n")).toContain("✗ app/bad failed: app/bad exited with code 1")
    expect(text[0]?.split("\n")[1]).toMatch(/^app\/bad +failed +- +- +cannot open config$/)
    expect(text.at(-1)).toBe("✗ 2 of 2 daemons not up (the wait timed out after 2.0s)")
  })

  it("a daemon running but still starting from an earlier start is not ready (exit 1)", () => {
    const wait = waited([[{ _tag: "AlreadyRunning", id: "app/slow", pid: 9 }, undefined]])
    const rows = upRows(wait, [entry("app/slow", "waiting")], new Map([["app/slow", ["warming"]]]), "")
    expect(rows[0]).toMatchObject({ status: "not_ready", pid: 9, output: ["warming"] })
    expect(upStatus(rows, wait.settled, false)).toBe(1)
  })
})
