import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef, LogLevel, Schema } from "effect"
import { Settings } from "../../src/domain/Settings.js"
import { hostLogLevel, setHostLogLevel } from "../../src/host/logLevel.js"

const settings = (general: Record<string, unknown>) => Schema.decodeUnknownSync(Settings)({ general })

describe("the supervisor's own log level", () => {
  it("log_level on a terminal or a pipe; log_file_level (default: log_level) in supervisor.log", () => {
    expect(hostLogLevel(settings({}), false)).toBe(LogLevel.Info)
    expect(hostLogLevel(settings({}), true)).toBe(LogLevel.Info)
    expect(hostLogLevel(settings({ log_level: "debug" }), false)).toBe(LogLevel.Debug)
    expect(hostLogLevel(settings({ log_level: "debug" }), true)).toBe(LogLevel.Debug)
    const both = settings({ log_level: "error", log_file_level: "trace" })
    expect(hostLogLevel(both, false)).toBe(LogLevel.Error)
    expect(hostLogLevel(both, true)).toBe(LogLevel.Trace)
    expect(hostLogLevel(settings({ log_level: "off" }), false)).toBe(LogLevel.None)
    expect(hostLogLevel(settings({ log_file_level: "warn" }), true)).toBe(LogLevel.Warning)
  })

  it.effect("applies to the fibers started after it", () =>
    Effect.gen(function* () {
      yield* setHostLogLevel(LogLevel.Warning)
      const seen = yield* Effect.fork(FiberRef.get(FiberRef.currentMinimumLogLevel)).pipe(
        Effect.flatMap((f) => f.await),
      )
      expect(seen._tag === "Success" && seen.value).toBe(LogLevel.Warning)
    }),
  )
})
