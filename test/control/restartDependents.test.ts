import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref } from "effect"
import type { ReadinessProbesShape } from "../../src/supervisor/readiness/index.js"
import { makeApiHarness } from "../../src/testing/apiHarness.js"
import { waitUntil } from "../logs/helpers.js"

// db restarts its dependents; cache stands between db and api, so a command restarting all
// three holds api's restart while cache gets ready: the moment db's readiness cascades
const STACK = `[daemons.db]
run = "exec db"
ready_delay = 0
restart_dependents = true

[daemons.cache]
run = "exec cache"
depends = ["db"]
ready_cmd = "cache-ready"

[daemons.api]
run = "exec api"
depends = ["db", "cache"]
ready_delay = 0

[daemons.worker]
run = "exec worker"
depends = ["db"]
ready_delay = 0
`

/** Lets the wall clock move on by a millisecond: runs compare their `startedAt` (epoch ms). */
const nextMillisecond = Effect.sync(() => {
  const now = Date.now()
  while (Date.now() === now) {
    // the next millisecond comes within one
  }
})

describe("RestartDependents (real Control over fakes)", () => {
  it.scopedLive(
    "leaves a dependent to the command that restarts it with the dependency: each restarts once",
    () =>
      Effect.gen(function* () {
        // cache's readiness check passes at once, or once `held` opens while a test holds it
        let held: Deferred.Deferred<void> | undefined
        const probes: ReadinessProbesShape = {
          http: () => Effect.dieMessage("no http check here"),
          port: () => Effect.dieMessage("no port check here"),
          cmd: () =>
            Effect.as(held === undefined ? Effect.void : Deferred.await(held), { ok: true, output: "" }),
        }
        const h = yield* makeApiHarness({ probes })
        const from = { _tag: "Directory", cwd: h.project("shop", STACK) }
        const spawnsOf = (id: string) =>
          Effect.map(Ref.get(h.fake.spawned), (rs) => rs.filter((r) => r.id === id).length)
        const spawned = (n: number) =>
          waitUntil(
            `${n} spawns`,
            Effect.map(Ref.get(h.fake.spawned), (rs) => rs.length >= n),
            "30 seconds",
          )
        const command = (body: Record<string, unknown>) => h.request("POST", "/api/commands", body)
        const started = yield* command({
          _tag: "Start",
          selection: { ids: ["api", "worker"], from },
          reason: "cli",
        })
        expect(started.status).toBe(200)
        yield* nextMillisecond
        // one command restarts db, cache and api: db is ready, cache is held, api waits for it
        const gate = yield* Deferred.make<void>()
        held = gate
        const restart = yield* Effect.fork(
          command({ _tag: "Restart", selection: { ids: ["db", "cache", "api"], from }, reason: "cli" }),
        )
        yield* spawned(6)
        expect(yield* spawnsOf("shop/cache")).toBe(2)
        // db's readiness cascades now: worker is restarted, api is left to the command
        const cascade = yield* command({ _tag: "RestartDependents", id: "shop/db", reason: "dependency" })
        expect(cascade.json).toEqual({ restarted: ["shop/worker"], left_to_commands: ["shop/api"] })
        yield* Deferred.succeed(gate, undefined)
        const restarted = yield* Fiber.join(restart)
        expect(restarted.status).toBe(200)
        expect((restarted.json as Array<{ _tag: string; id: string }>).map((o) => [o._tag, o.id])).toEqual([
          ["Ready", "shop/db"],
          ["Ready", "shop/cache"],
          ["Ready", "shop/api"],
        ])
        yield* spawned(8)
        for (const id of ["shop/db", "shop/cache", "shop/api", "shop/worker"])
          expect(yield* spawnsOf(id)).toBe(2)
        // every dependent now runs against db's current run: nothing to restart, nothing left
        const after = yield* command({ _tag: "RestartDependents", id: "shop/db" })
        expect(after.json).toEqual({ restarted: [], left_to_commands: [] })
        // db restarted alone: the cascade restarts its dependents (no command holds them), api after cache
        yield* nextMillisecond
        const alone = yield* command({ _tag: "Restart", selection: { ids: ["db"], from }, reason: "cli" })
        expect(alone.status).toBe(200)
        const again = yield* command({ _tag: "RestartDependents", id: "shop/db" })
        expect(again.json).toEqual({
          restarted: ["shop/cache", "shop/worker", "shop/api"],
          left_to_commands: [],
        })
        yield* spawned(12)
        for (const id of ["shop/db", "shop/cache", "shop/api", "shop/worker"])
          expect(yield* spawnsOf(id)).toBe(3)
      }),
  )
})
