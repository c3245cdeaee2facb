/**
 * The CLI's sender of the command protocol (src/cli/commandClient.ts, src/cli/progress.ts): what
 * `supervisor start` puts on the wire is the Start command with the selection as typed and its
 * directory as `from` (no definitions: the supervisor selects), and a typed failure comes back as
 * itself. A fake HTTP client records each request and answers as the supervisor would.
 */

import type { HttpApiClient } from "@effect/platform"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { SupervisorClient } from "../../src/cli/client.js"
import { sendCommand } from "../../src/cli/commandClient.js"
import { here, selectionOf } from "../../src/cli/commandSelection.js"
import { startWithProgress } from "../../src/cli/progress.js"
import { emptyConfig } from "../../src/cli/session.js"
import { Start, Stop } from "../../src/domain/Command.js"

const fakeClient = (status: number, body: unknown, contentType = "application/json") => {
  const sent: Array<{ url: string; body: unknown }> = []
  const http = HttpClient.make((request) =>
    Effect.sync(() => {
      const raw = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
      sent.push({ url: request.url, body: JSON.parse(raw) })
      return HttpClientResponse.fromWeb(
        request,
        new Response(typeof body === "string" ? body : JSON.stringify(body), {
          status,
          headers: { "content-type": contentType },
        }),
      )
    }),
  )
  // only the raw client is used by the sender
  const api = undefined as unknown as HttpApiClient.Client<never, never, never>
  const layer = { api, http, socket: "fake" } as unknown as SupervisorClient["Type"]
  return { sent, provide: Effect.provideService(SupervisorClient, layer) }
}

const config = { ...emptyConfig("/work/app"), cwd: "/work/app" }

describe("the CLI's commands on the wire", () => {
  it("start sends the Start command: the selection as typed, from this directory, no definitions", async () => {
    const ready = [{ _tag: "Ready", id: "app/web", pid: 42 }]
    const fake = fakeClient(200, ready)
    const selection = selectionOf(
      { ids: ["web"], all: false, group: Option.some("backend") },
      "local",
      here(config),
    )
    const started = await Effect.runPromise(
      startWithProgress(
        (wait) => new Start({ selection, force: true, overrides: { ready_delay: 0 }, reason: "cli", wait }),
        { json: true, quiet: false },
      ).pipe(fake.provide),
    )
    expect(started).toEqual({ outcomes: ready, printed: false })
    expect(fake.sent).toHaveLength(1)
    expect(fake.sent[0]?.url).toBe("http://localhost/api/commands")
    expect(fake.sent[0]?.body).toEqual({
      _tag: "Start",
      selection: {
        ids: ["web"],
        all: false,
        group: "backend",
        files: "local",
        from: { _tag: "Directory", cwd: "/work/app", env: expect.any(Object), strict: false },
      },
      force: true,
      overrides: { ready_delay: 0 },
      reason: "cli",
      wait: "ready",
    })
    expect(fake.sent[0]?.body).not.toHaveProperty("definitions")
    const env = (fake.sent[0]!.body as { selection: { from: { env: Record<string, string> } } }).selection
      .from.env
    expect(env.PATH).toBe(process.env.PATH)
  })

  it("a typed failure comes back as itself; a refusal without one is a defect naming the status", async () => {
    const nothing = fakeClient(409, { _tag: "NothingSelected", message: "no daemons to start" })
    const failed = await Effect.runPromise(
      Effect.either(sendCommand(new Stop({ selection: { ids: [], all: true }, reason: "cli" }))).pipe(
        nothing.provide,
      ),
    )
    expect(Either.isLeft(failed) && failed.left._tag).toBe("NothingSelected")
    const broken = fakeClient(500, "oops", "text/plain")
    const exit = await Effect.runPromiseExit(
      sendCommand(new Stop({ selection: { ids: ["web"], all: false }, reason: "cli" })).pipe(broken.provide),
    )
    expect(String(exit._tag === "Failure" ? exit.cause : "")).toMatch(/refused the Stop command \(HTTP 500\)/)
  })

  it("a start on a transcript asks for events and prints each daemon's line, not the upfront list", async () => {
    const ready = { _tag: "Ready", id: "app/web", pid: 42 }
    const lines = [
      { waiting: [{ id: "app/web", what: "port 3000" }] },
      { waiting: [{ id: "app/web", what: "port 3000" }] },
      { outcome: ready },
      { outcomes: [ready] },
    ]
    const fake = fakeClient(200, lines.map((l) => `${JSON.stringify(l)}\n`).join(""), "application/x-ndjson")
    const isTTY = process.stderr.isTTY
    const printed: Array<string> = []
    const log = console.log
    try {
      Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true })
      console.log = (line: string) => printed.push(line)
      const started = await Effect.runPromise(
        startWithProgress(
          (wait) => new Start({ selection: { ids: ["web"], all: false }, reason: "cli", wait }),
          { json: false, quiet: false },
        ).pipe(fake.provide),
      )
      expect(started).toEqual({ outcomes: [ready], printed: true })
    } finally {
      console.log = log
      Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true })
    }
    expect((fake.sent[0]!.body as { wait: string }).wait).toBe("events")
    expect(printed.filter((l) => l.includes("waiting for"))).toHaveLength(1)
  })
})
