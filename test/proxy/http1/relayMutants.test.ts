// The relay's properties (relayProperties.ts) checked against steps broken on purpose: each
// invariant must catch its breakage, or the property proves nothing.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { RelayAction } from "../../../src/proxy/http1/relayState.js"
import { step } from "../../../src/proxy/http1/relayStep.js"
import { PARAMS, type RelayProperty, relayProperties } from "./relayProperties.js"
import type { Step } from "./relayWorld.js"

const latin1 = (data: Buffer | string) => (typeof data === "string" ? data : data.toString("latin1"))

/** `step` with its actions changed by `change`. */
const withActions =
  (change: (actions: ReadonlyArray<RelayAction>) => ReadonlyArray<RelayAction>): Step =>
  (state, event) => {
    const [next, actions] = step(state, event)
    return [next, change(actions)]
  }

const mutants: ReadonlyArray<{ name: string; step: Step; breaks: RelayProperty }> = [
  {
    name: "sends a response head twice",
    step: withActions((actions) =>
      actions.flatMap((a) =>
        a._tag === "ToClient" && latin1(a.data).startsWith("HTTP/1.1 2") ? [a, a] : [a],
      ),
    ),
    breaks: "every request gets exactly one response or a close",
  },
  {
    name: "drops a byte of each request body",
    step: withActions((actions) =>
      actions.map((a) =>
        a._tag === "ToDaemon" && typeof a.data !== "string" ? { ...a, data: a.data.subarray(1) } : a,
      ),
    ),
    breaks: "bytes are relayed in order, unchanged but for the documented head rewrites",
  },
  {
    name: "holds a head however long it grows",
    step: (state, event) =>
      step(
        state._tag === "Relaying"
          ? { ...state, config: { ...state.config, maxHead: Number.POSITIVE_INFINITY } }
          : state,
        event,
      ),
    breaks: "nothing is held beyond the documented bound",
  },
]

describe("the relay's properties against a broken step", () => {
  for (const mutant of mutants)
    it(`"${mutant.breaks}" fails for a step that ${mutant.name}`, () => {
      const result = fc.check(relayProperties(mutant.step)[mutant.breaks], PARAMS)
      expect(result.failed).toBe(true)
    }, 60_000)
})
