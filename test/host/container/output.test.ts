import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { makeContainerOutput } from "../../../src/host/container/output.js"
import { makeMemoryLogStore } from "../../../src/testing/MemoryLogStore.js"

/** Waits (polling, bounded) until `check` holds. */
const until = (what: string, check: () => boolean) =>
  Effect.gen(function* () {
    while (!check()) yield* Effect.sleep("5 millis")
  }).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`timed out: ${what}`) }))

describe("container mode's output", () => {
  it.live("prints a watched daemon's new lines once each, with its name; not what was stored before", () =>
    Effect.gen(function* () {
      const logs = yield* makeMemoryLogStore({ dir: "/nowhere" })
      let out = ""
      const scope = yield* Scope.make()
      const output = yield* makeContainerOutput(logs.store, "text", (text) => {
        out += text
      }).pipe(Scope.extend(scope))
      yield* logs.emit("app/web", "an old run's line")
      yield* output.watch("app/web")
      yield* logs.emit("app/web", "listening")
      yield* output.watch("app/web") // a second run: already followed
      yield* output.watch("app/db")
      yield* logs.emit("app/db", "ready")
      yield* logs.emit("app/web", "GET /")
      yield* until("every line", () => out.includes("web | GET /") && out.includes("db | ready"))
      yield* Scope.close(scope, Exit.void)
      expect(out.split("\n").filter((l) => l.startsWith("web"))).toEqual(["web | listening", "web | GET /"])
      expect(out).not.toContain("old run")
      expect(out.match(/db \| ready/g)).toHaveLength(1)
    }),
  )
})
