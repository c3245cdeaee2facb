import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { DaemonState } from "../../src/supervisor/DaemonState.js"
import type { PortCheck } from "../../src/supervisor/ports/availability.js"
import { makePortClaims } from "../../src/supervisor/ports/claims.js"
import { resolvePorts } from "../../src/supervisor/ports/resolve.js"

// only the status matters to the claims
const state = (type: DaemonState["status"]["type"]) => ({ status: { type } }) as unknown as DaemonState

describe("port claims", () => {
  it("a port given to a daemon that has not spawned yet, or runs, is taken for the others; not once it stopped", async () => {
    const states = new Map<string, DaemonState>([
      ["app/api.1", state("stopped")],
      ["app/api.2", state("stopped")],
      ["app/api.3", state("stopped")],
    ])
    // nothing listens anywhere: only the claims make a port taken
    const free = (_port: number): Effect.Effect<PortCheck> => Effect.succeed({ free: true })
    const run = Effect.gen(function* () {
      const claim = yield* makePortClaims(
        Effect.sync(() => states),
        free,
      )
      const resolve = (id: string, port: number) =>
        claim(id, (check) => resolvePorts([port], true, check)).pipe(Effect.map((r) => r.ports[0]))
      const first = yield* resolve("app/api.1", 4000)
      // api.2 was bumped onto api.3's port: api.3 must move on, though api.2 does not listen yet
      const second = yield* resolve("app/api.2", 4000)
      const third = yield* resolve("app/api.3", 4001)
      // api.1 spawned (waiting) and stays claimed; api.2 stopped after its run: its port is free
      states.set("app/api.1", state("waiting"))
      states.set("app/api.2", state("errored"))
      const again = yield* resolve("app/api.3", 4000)
      return [first, second, third, again]
    })
    expect(await Effect.runPromise(run)).toEqual([4000, 4001, 4002, 4001])
  })
})
