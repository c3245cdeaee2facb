/**
 * How our own child's exit is told (src/process/exitNotice.ts): the effect, the callbacks, and a
 * wait with a timer beside it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { exitWithin, makeExitNotice } from "../../src/process/exitNotice.js"
import type { ExitStatus } from "../../src/process/ProcessService.js"

const status: ExitStatus = { code: 0, signal: null, known: true }

describe("an exit notice", () => {
  it.effect(
    "tells the first exit to the waiting effect and to each callback once; late callbacks at once",
    () =>
      Effect.gen(function* () {
        const notice = makeExitNotice()
        const heard: Array<string> = []
        const waiter = yield* Effect.fork(notice.exit)
        notice.whenExited((s) => heard.push(`a ${s.code}`))
        const off = notice.whenExited(() => heard.push("unregistered"))
        off()
        notice.done(status)
        notice.done({ code: 1, signal: null, known: true })
        expect(yield* Fiber.join(waiter)).toEqual(status)
        notice.whenExited((s) => heard.push(`late ${s.code}`))
        expect(heard).toEqual(["a 0", "late 0"])
        expect(yield* notice.exit).toEqual(status)
      }),
  )

  it.live("exitWithin: the exit when it comes first, none once the time has passed", () =>
    Effect.gen(function* () {
      const early = makeExitNotice()
      const waiting = yield* Effect.fork(exitWithin(early.whenExited, 10_000))
      yield* Effect.sleep("20 millis")
      early.done(status)
      expect(yield* Fiber.join(waiting)).toEqual(Option.some(status))

      const never = makeExitNotice()
      const began = Date.now()
      expect(yield* exitWithin(never.whenExited, 50)).toEqual(Option.none())
      expect(Date.now() - began).toBeGreaterThanOrEqual(50 - 1)

      const done = makeExitNotice()
      done.done(status)
      expect(yield* exitWithin(done.whenExited, 10_000)).toEqual(Option.some(status))
    }),
  )

  it.live("exitWithin interrupted leaves no callback behind", () =>
    Effect.gen(function* () {
      const notice = makeExitNotice()
      let calls = 0
      const counting = (f: (s: ExitStatus) => void) =>
        notice.whenExited((s) => {
          calls++
          f(s)
        })
      const waiting = yield* Effect.fork(exitWithin(counting, 10_000))
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(waiting)
      notice.done(status)
      expect(calls).toBe(0)
    }),
  )
})
