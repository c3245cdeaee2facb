import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref, TestClock } from "effect"
import { changedText, makeDebouncer } from "../../../src/automation/watch/debounce.js"
import { expectSleep } from "../../supervisor/helpers.js"

const setup = Effect.gen(function* () {
  const fired = yield* Ref.make<ReadonlyArray<readonly [string, ReadonlyArray<string>]>>([])
  const d = yield* makeDebouncer(
    () => "1 second",
    (id, files) => Ref.update(fired, (f) => [...f, [id, files] as const]),
  )
  return { d, fired: Ref.get(fired) }
})

describe("debounce", () => {
  it.scoped("a burst of changes fires once, 1 s after the last one, with every file once", () =>
    Effect.gen(function* () {
      const { d, fired } = yield* setup
      yield* expectSleep(1000, d.touch("app/web", "a.js"))
      yield* TestClock.adjust("600 millis")
      yield* expectSleep(1000, d.touch("app/web", "b.js"))
      yield* TestClock.adjust("600 millis")
      yield* expectSleep(1000, d.touch("app/web", "a.js"))
      // 1.2 s after the first change, 0 after the last: nothing yet
      expect(yield* fired).toEqual([])
      yield* TestClock.adjust("999 millis")
      expect(yield* fired).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect(yield* fired).toEqual([["app/web", ["a.js", "b.js"]]])
      // quiet afterwards: no second fire
      yield* TestClock.adjust("10 seconds")
      expect((yield* fired).length).toBe(1)
    }),
  )

  it.scoped("daemons are debounced apart; a change after the fire starts a new round", () =>
    Effect.gen(function* () {
      const { d, fired } = yield* setup
      yield* expectSleep(1000, d.touch("app/web", "a.js"))
      yield* TestClock.adjust("500 millis")
      yield* expectSleep(1000, d.touch("app/api", "b.js"))
      yield* TestClock.adjust("500 millis")
      expect(yield* fired).toEqual([["app/web", ["a.js"]]])
      yield* TestClock.adjust("500 millis")
      expect(yield* fired).toEqual([
        ["app/web", ["a.js"]],
        ["app/api", ["b.js"]],
      ])
      yield* expectSleep(1000, d.touch("app/web", "c.js"))
      yield* TestClock.adjust("1 second")
      expect((yield* fired).at(-1)).toEqual(["app/web", ["c.js"]])
    }),
  )

  it.scoped("cancel drops what is pending", () =>
    Effect.gen(function* () {
      const { d, fired } = yield* setup
      yield* expectSleep(1000, d.touch("app/web", "a.js"))
      yield* d.cancel("app/web")
      yield* TestClock.adjust("5 seconds")
      expect(yield* fired).toEqual([])
    }),
  )

  it("names the changed files", () => {
    expect(changedText(["src/app.js"])).toBe("src/app.js changed")
    expect(changedText(["a.js", "b.js"])).toBe("a.js and 1 other file changed")
    expect(changedText(["a.js", "b.js", "c.js"])).toBe("a.js and 2 other files changed")
  })
})
