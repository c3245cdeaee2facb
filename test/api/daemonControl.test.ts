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

/** The daemon-control routes through the real handlers, Control and Supervisor, in-process, over fakes. */
describe("daemon control routes (in-process API)", () => {
  it.scoped("a registered project's daemon starts with its dependency, restarts, stops; entries follow", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      expect((yield* h.request("POST", "/api/namespaces", { dir })).json).toMatchObject({ ok: true })
      const entry = (id: string) => h.request("GET", `/api/daemons/${encodeURIComponent(id)}`)
      expect((yield* entry("shop/api")).json).toMatchObject({ status: { type: "available" }, pid: null })

      expect((yield* h.request("POST", "/api/daemons/shop%2Fapi/start")).json).toEqual({ ok: true })
      const spawned = (yield* Ref.get(h.fake.spawned)).map((r) => r.id)
      expect(spawned).toEqual(["shop/db", "shop/api"])
      const started = (yield* entry("shop/api")).json as { pid: number; status: { type: string } }
      expect(started.status.type).toBe("running")
      expect(yield* h.fake.running).toContain(started.pid)

      expect((yield* h.request("POST", "/api/daemons/shop%2Fapi/restart")).json).toEqual({ ok: true })
      const restarted = (yield* entry("shop/api")).json as { pid: number }
      expect(restarted.pid).not.toBe(started.pid)
      // the running dependency is left alone
      expect((yield* Ref.get(h.fake.spawned)).map((r) => r.id)).toEqual(["shop/db", "shop/api", "shop/api"])

      expect((yield* h.request("POST", "/api/daemons/shop%2Fapi/stop")).json).toEqual({ ok: true })
      expect((yield* entry("shop/api")).json).toMatchObject({ status: { type: "stopped" }, pid: null })
      expect(yield* h.fake.running).not.toContain(restarted.pid)
      // stopping what does not run is fine; an unknown daemon is a business failure (200, ok false)
      expect((yield* h.request("POST", "/api/daemons/shop%2Fapi/stop")).json).toEqual({ ok: true })
      const unknown = yield* h.request("POST", "/api/daemons/shop%2Fnope/start")
      expect(unknown.status).toBe(200)
      expect(unknown.json).toMatchObject({ ok: false, error: expect.stringContaining("shop/nope") })
    }),
  )

  it.scoped("disable refuses starts until enabled; a crashed start says why", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      yield* h.request("POST", "/api/namespaces", { dir })
      expect((yield* h.request("POST", "/api/daemons/shop%2Fspare/disable")).json).toEqual({ ok: true })
      expect((yield* h.request("POST", "/api/daemons/shop%2Fspare/start")).json).toEqual({
        ok: false,
        error: "shop/spare is disabled; enable it first",
      })
      expect(yield* Ref.get(h.fake.spawned)).toEqual([])
      expect((yield* h.request("POST", "/api/daemons/shop%2Fspare/enable")).json).toEqual({ ok: true })
      yield* h.fake.failNext("no such program: spare")
      const failed = (yield* h.request("POST", "/api/daemons/shop%2Fspare/start")).json
      expect(failed).toMatchObject({ ok: false, error: expect.stringContaining("no such program: spare") })
      expect((yield* h.request("GET", "/api/daemons/shop%2Fspare")).json).toMatchObject({
        status: { type: "failed" },
      })
    }),
  )

  it.scoped(
    "a daemon of a directory a CLI reported (GET /api/cli/supervisor?cwd=) is known before it ever ran",
    () =>
      Effect.gen(function* () {
        const h = yield* makeApiHarness()
        const dir = h.project("cafe", STACK)
        expect((yield* h.request("POST", "/api/daemons/cafe%2Fapi/start")).json).toMatchObject({ ok: false })
        expect((yield* h.request("GET", "/api/daemons/cafe%2Fapi")).status).toBe(404)
        expect((yield* h.request("GET", `/api/cli/supervisor?cwd=${encodeURIComponent(dir)}`)).status).toBe(
          200,
        )
        expect((yield* h.request("GET", "/api/daemons/cafe%2Fapi")).json).toMatchObject({
          status: { type: "available" },
        })
        expect((yield* h.request("POST", "/api/daemons/cafe%2Fapi/start")).json).toEqual({ ok: true })
        expect((yield* Ref.get(h.fake.spawned)).map((r) => r.id)).toEqual(["cafe/db", "cafe/api"])
      }),
  )
})
