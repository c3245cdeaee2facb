import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

const STACK = `[daemons.db]
run = "exec db --serve"
ready_delay = 0

[daemons.api]
run = "exec api --serve"
depends = ["db"]
ready_delay = 0

[daemons.spare]
run = "exec spare"
ready_delay = 0
`

/** POST /api/commands through the real handler, Control and Supervisor, in-process, over fakes. */
describe("POST /api/commands (in-process API)", () => {
  it.scoped("Start and Stop a selection from a directory: dependencies first, dependents stopped first", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      const from = { _tag: "Directory", cwd: dir }
      const started = yield* h.request("POST", "/api/commands", {
        _tag: "Start",
        selection: { ids: ["api"], from },
        reason: "cli",
      })
      expect(started.status).toBe(200)
      expect((started.json as Array<{ _tag: string; id: string }>).map((o) => [o._tag, o.id])).toEqual([
        ["Ready", "shop/db"],
        ["Ready", "shop/api"],
      ])
      expect((yield* Ref.get(h.fake.spawned)).map((r) => r.id)).toEqual(["shop/db", "shop/api"])
      const stopped = yield* h.request("POST", "/api/commands", {
        _tag: "Stop",
        selection: { ids: ["db", "api", "spare"], from },
      })
      expect(stopped.status).toBe(200)
      // never run: listed first; then dependents before their dependencies
      expect(stopped.json).toEqual([
        { id: "shop/spare", was_running: false, killed: false },
        { id: "shop/api", was_running: true, killed: false },
        { id: "shop/db", was_running: true, killed: false },
      ])
    }),
  )

  it.scoped("a Start with wait events answers ndjson: the waiting list, each outcome, all outcomes", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      const reply = yield* h.request("POST", "/api/commands", {
        _tag: "Start",
        selection: { ids: ["api"], from: { _tag: "Directory", cwd: dir } },
        wait: "events",
      })
      expect(reply.status).toBe(200)
      expect(reply.contentType).toContain("application/x-ndjson")
      const lines = reply.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(Object.keys(lines[0]!)).toEqual(["waiting"])
      expect((lines[0]!.waiting as Array<{ id: string }>).map((w) => w.id)).toEqual(["shop/db", "shop/api"])
      const last = lines[lines.length - 1]!
      expect((last.outcomes as Array<{ id: string }>).map((o) => o.id)).toEqual(["shop/db", "shop/api"])
    }),
  )

  it.scoped("typed failures: unknown daemon 404, empty selection 400, nothing to start 409", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      const unknown = yield* h.request("POST", "/api/commands", {
        _tag: "Stop",
        selection: { ids: ["nope"], from: { _tag: "Directory", cwd: dir } },
      })
      expect(unknown.status).toBe(404)
      expect(unknown.json).toMatchObject({ _tag: "UnknownDaemon", message: expect.stringContaining("nope") })
      const none = yield* h.request("POST", "/api/commands", { _tag: "Start", selection: {} })
      expect(none.status).toBe(400)
      expect(none.json).toMatchObject({ _tag: "UsageError" })
      const empty = h.project("empty", "")
      const nothing = yield* h.request("POST", "/api/commands", {
        _tag: "Start",
        selection: { all: true, from: { _tag: "Directory", cwd: empty } },
      })
      expect(nothing.status).toBe(409)
      expect(nothing.json).toMatchObject({ _tag: "NothingSelected" })
      expect(yield* Ref.get(h.fake.spawned)).toEqual([])
    }),
  )

  it.scoped("bad commands are a 400 BadCommand that says what is wrong", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const bad = (body: unknown) =>
        Effect.map(h.request("POST", "/api/commands", body), (r) => {
          expect(r.status).toBe(400)
          const json = r.json as { _tag: string; message: string }
          expect(json._tag).toBe("BadCommand")
          return json.message
        })
      expect(yield* bad({ _tag: "Explode" })).toContain(
        'unknown command "Explode"; _tag is one of Start, Restart',
      )
      expect(yield* bad({ selection: {} })).toContain("no _tag")
      expect(yield* bad([1])).toContain("JSON object")
      expect(yield* bad("{not json")).toContain("not JSON")
      expect(yield* bad({ _tag: "Stop", selection: { ids: "web" } })).toMatch(
        /^bad Stop command: selection\.ids: /,
      )
      expect(yield* bad({ _tag: "Stop", selection: {}, reason: "me" })).toContain("reason")
      expect(yield* bad({ _tag: "Stop", selection: {}, bogus: 1 })).toContain("bogus")
    }),
  )
})
