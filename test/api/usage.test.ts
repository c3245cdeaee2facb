import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

/** GET /api/usage through the real handler and history, over a fake process-tree sampler. */
describe("GET /api/usage (in-process API)", () => {
  it.scoped("answers the history's samples of each daemon, with its cadence and capacity", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      expect((yield* h.request("GET", "/api/usage")).json).toEqual({
        interval_ms: 5000,
        capacity: 60,
        daemons: [],
      })
      const dir = h.project("shop", 'namespace = "shop"\n[daemons.web]\nrun = "exec web"\nready_delay = 0\n')
      expect((yield* h.request("POST", "/api/namespaces", { dir })).json).toMatchObject({ ok: true })
      expect((yield* h.request("POST", "/api/daemons/shop%2Fweb/start")).json).toEqual({ ok: true })
      const { pid } = (yield* h.request("GET", "/api/daemons/shop%2Fweb")).json as { pid: number }
      yield* h.trees.set(pid, { memoryBytes: 4096, cpuSeconds: 1 })
      yield* h.sampleUsage
      const reply = yield* h.request("GET", "/api/usage")
      expect(reply.status).toBe(200)
      expect(reply.json).toMatchObject({
        daemons: [{ id: "shop/web", samples: [{ cpu_percent: 0, memory_bytes: 4096 }] }],
      })
    }),
  )
})
