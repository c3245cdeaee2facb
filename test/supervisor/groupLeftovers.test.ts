/**
 * A daemon's run that leaves processes in its group when its tracked process exits (a child the
 * shell put in the background): the supervisor ends them at once, with the daemon's stop signal,
 * so nothing of the run outlives it untracked, and says so in the daemon's log.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { awaitRuntime, definition, expectSleep, makeHarness, startReady } from "./helpers.js"

const WEB = "app/web"

describe("processes a run leaves in its group", () => {
  it.scoped("an exit 0 that leaves a child: the group gets the stop signal, the log says so", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { stop_signal: { signal: "SIGINT" } }))
      yield* h.fake.leaveChild(pid)
      expect(yield* h.fake.service.groupMembers(pid)).toHaveLength(2)
      yield* h.fake.exit(pid, { code: 0 })
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "stopped")
      yield* awaitRuntime(h.sup, WEB, () => true)
      expect(yield* h.fake.service.groupMembers(pid)).toEqual([])
      expect(yield* Ref.get(h.fake.signals)).toContainEqual({ pgid: pid, signal: "SIGINT" })
      expect(yield* h.logLines(WEB)).toEqual(["[supervisor] stopped 1 process left in its process group"])
    }),
  )

  it.scoped("a crash that leaves a child: ended before the retry spawns a new run", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { retry: 1 }))
      yield* h.fake.leaveChild(pid)
      yield* expectSleep(1000, h.fake.exit(pid, { code: 1 }))
      expect(yield* h.fake.service.groupMembers(pid)).toEqual([])
      expect(yield* Ref.get(h.fake.signals)).toContainEqual({ pgid: pid, signal: "SIGTERM" })
      expect(yield* h.logLines(WEB)).toEqual([
        "[supervisor] exited with code 1",
        "[supervisor] stopped 1 process left in its process group",
      ])
    }),
  )

  it.scoped("an exit that leaves nothing: no signal, no line", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.fake.exit(pid, { code: 0 })
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "stopped")
      expect(yield* Ref.get(h.fake.signals)).toEqual([])
      expect(yield* h.logLines(WEB)).toEqual([])
    }),
  )
})
