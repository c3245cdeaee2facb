import fc from "fast-check"
import { describe, it } from "vitest"
import { step } from "../../../src/proxy/http1/relayStep.js"
import { PARAMS, relayProperties } from "./relayProperties.js"

describe("the relay's step, driven by arbitrary interleavings of both sides' bytes, closes, errors and timers", () => {
  for (const [name, property] of Object.entries(relayProperties(step)))
    it(name, () => fc.assert(property, PARAMS), 60_000)
})
