import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { parseStopSignal, STOP_SIGNALS, StopSignalName } from "../../src/domain/Signal.js"
import { decoder, left, messages, right } from "./helpers.js"

describe("parseStopSignal", () => {
  it("lists the six allowed signals of the spec", () => {
    expect([...STOP_SIGNALS]).toEqual(["SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2"])
  })

  it.each(STOP_SIGNALS)("accepts %s with and without the SIG prefix", (signal) => {
    expect(right(parseStopSignal(signal))).toBe(signal)
    expect(right(parseStopSignal(signal.slice(3)))).toBe(signal)
  })

  it("is case-insensitive and trims", () => {
    expect(right(parseStopSignal("term"))).toBe("SIGTERM")
    expect(right(parseStopSignal("sigint"))).toBe("SIGINT")
    expect(right(parseStopSignal("SigQuit"))).toBe("SIGQUIT")
    expect(right(parseStopSignal("usr1"))).toBe("SIGUSR1")
    expect(right(parseStopSignal(" HUP "))).toBe("SIGHUP")
  })

  it.each(["KILL", "SIGKILL", "SIGSTOP", "9", "", "SIG", "SIGSIGTERM", "TERMINATE", "USR3"])(
    "rejects %j, listing the allowed signals",
    (input) => {
      expect(left(parseStopSignal(input))).toBe(
        `unknown stop signal ${JSON.stringify(input)}; use one of SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2`,
      )
    },
  )
})

describe("StopSignalName schema", () => {
  const { ok, fail } = decoder(StopSignalName)

  it("normalises to the SIG form", () => {
    expect(ok("INT")).toBe("SIGINT")
    expect(ok("sigterm")).toBe("SIGTERM")
    expect(ok("usr2")).toBe("SIGUSR2")
  })

  it("encodes the SIG form unchanged", () => {
    expect(Schema.encodeSync(StopSignalName)("SIGHUP")).toBe("SIGHUP")
  })

  it("rejects unknown signals and non-strings", () => {
    expect(messages(fail("KILL"))).toContain('unknown stop signal "KILL"')
    expect(messages(fail(15))).toContain("expected a signal name: one of SIGTERM")
  })
})
