import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

const STACK = `[daemons.db]
run = "exec db --serve"
ready_delay = 0

[daemons.api]
run = "exec api --serve"
depends = ["db"]
ready_delay = 0
`

const lines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { _tag: string; seq: number; id?: string; to?: string })

/** GET /api/events through the real handlers, in-process, over fakes. */
describe("GET /api/events", () => {
  it.scoped("ndjson: a start with its dependency, in order; since resumes; ?id= filters", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      yield* h.request("POST", "/api/namespaces", { dir })
      expect((yield* h.request("POST", "/api/daemons/shop%2Fapi/start")).json).toEqual({ ok: true })
      const last = yield* h.events.lastSeq
      const all = yield* h.openStream("/api/events?since=0")
      expect(all.contentType).toBe("application/x-ndjson")
      const got = lines(yield* all.read((t) => t.split("\n").length > last))
      yield* all.close
      expect(got.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1))
      const states = got.filter((e) => e._tag === "DaemonStateChanged").map((e) => `${e.id}>${e.to}`)
      expect(states).toEqual(["shop/db>waiting", "shop/db>running", "shop/api>waiting", "shop/api>running"])
      // resumed after the third: the rest, and only the api's with ?id=
      const rest = yield* h.openStream("/api/events?since=3&id=shop/api")
      const resumed = lines(yield* rest.read((t) => t.includes('"to":"running"')))
      yield* rest.close
      expect(resumed.every((e) => e.seq > 3 && e.id === "shop/api")).toBe(true)
      expect(resumed.map((e) => e.to).filter((t) => t !== undefined)).toEqual(["waiting", "running"])
    }),
  )

  it.scoped("Server-Sent Events with Accept: text/event-stream; Last-Event-ID resumes", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      yield* h.request("POST", "/api/namespaces", { dir })
      yield* h.request("POST", "/api/daemons/shop%2Fdb/start")
      const sse = yield* h.openStream("/api/events", {
        accept: "text/event-stream",
        "last-event-id": "1",
      })
      expect(sse.contentType).toBe("text/event-stream")
      const text = yield* sse.read((t) => t.includes("id: 2\n"))
      yield* sse.close
      expect(text).toMatch(/^: events\n\nid: 2\nevent: DaemonStateChanged\ndata: \{.*"seq":2.*\}\n\n/)
      expect(text).not.toContain("id: 1\n")
    }),
  )

  it.scoped("a since that is not a seq is a 400 naming it", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const bad = yield* h.request("GET", "/api/events?since=soon")
      expect(bad.status).toBe(400)
      expect(bad.text).toContain("since must be an event's seq")
    }),
  )

  it.scoped("?usage=true: the usage samples between the events, ndjson and Server-Sent Events", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const dir = h.project("shop", STACK)
      yield* h.request("POST", "/api/namespaces", { dir })
      yield* h.request("POST", "/api/daemons/shop%2Fdb/start")
      const { pid } = (yield* h.request("GET", "/api/daemons/shop%2Fdb")).json as { pid: number }
      yield* h.trees.set(pid, { memoryBytes: 8192 })
      const plain = yield* h.openStream("/api/events")
      const ndjson = yield* h.openStream("/api/events?usage=true")
      const sse = yield* h.openStream("/api/events?usage=true", { accept: "text/event-stream" })
      // until a stream subscribed, a sample reaches nobody: sample until both got one
      const reads = yield* Effect.fork(
        Effect.all([
          ndjson.read((t) => t.includes("UsageSampled")),
          sse.read((t) => t.includes("event: UsageSampled")),
        ]),
      )
      while (Option.isNone(yield* Fiber.poll(reads))) {
        yield* h.sampleUsage
        yield* Effect.promise(() => new Promise((ok) => setTimeout(ok, 10)))
      }
      const [text, events] = yield* Fiber.join(reads)
      const sample = lines(text).find((l) => l._tag === "UsageSampled") as unknown as {
        interval_ms: number
        daemons: ReadonlyArray<{ id: string; pid: number; memory_bytes: number }>
      }
      expect(sample.interval_ms).toBe(5000)
      expect(sample.daemons).toEqual([expect.objectContaining({ id: "shop/db", pid, memory_bytes: 8192 })])
      // a sample has no seq: no id line
      expect(events).toMatch(/\n\nevent: UsageSampled\ndata: \{"_tag":"UsageSampled".*\}\n\n/)
      // a stream that did not ask gets none; a state change still reaches it
      yield* h.request("POST", "/api/daemons/shop%2Fdb/stop")
      const rest = yield* plain.read((t) => t.includes('"to":"stopped"'))
      expect(rest).not.toContain("UsageSampled")
      yield* plain.close
      yield* ndjson.close
      yield* sse.close
    }),
  )

  it.scoped("?usage= that is not a boolean is a 400", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const bad = yield* h.request("GET", "/api/events?usage=sometimes")
      expect(bad.status).toBe(400)
    }),
  )
})
