import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { RelayAction } from "../../../src/proxy/http1/relayState.js"
import { advance, step } from "../../../src/proxy/http1/relayStep.js"
import { PARAMS, relayProperties } from "./relayProperties.js"
import { scenario, schedule } from "./relayScenario.js"
import { runRelay, type Step } from "./relayWorld.js"

/** What the socket adapter runs: `advance`, changing each state in place. */
const inPlace: Step = (state, event) => {
  const out: RelayAction[] = []
  return [advance(state, event, out, true), out]
}

describe("the relay's step, driven by arbitrary interleavings of both sides' bytes, closes, errors and timers", () => {
  for (const [name, property] of Object.entries(relayProperties(step)))
    it(name, () => fc.assert(property, PARAMS), 60_000)

  it("leaves the state it is given as it was", () => {
    const checked: Step = (state, event) => {
      const before = JSON.stringify(state)
      const result = step(state, event)
      expect(JSON.stringify(state)).toBe(before)
      return result
    }
    fc.assert(
      fc.property(scenario, schedule, (s, sched) => void runRelay(checked, s, sched)),
      PARAMS,
    )
  }, 60_000)
})

describe("the relay's step changing its state in place, as the socket adapter runs it", () => {
  for (const [name, property] of Object.entries(relayProperties(inPlace)))
    it(name, () => fc.assert(property, PARAMS), 60_000)
})
