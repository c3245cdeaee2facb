// The invariants of the relay (docs/proxy.md), as properties of a `step` run in a world of
// sockets (relayWorld.ts): every request gets exactly one response or a close; bytes are relayed
// in order and unchanged but for the documented head rewrites; nothing is held beyond the bound.
import fc from "fast-check"
import { expect } from "vitest"
import {
  clientBytes,
  clientResponse,
  forwardedRequest,
  PORTS,
  type Scenario,
  scenario,
  schedule,
} from "./relayScenario.js"
import { type Run, runRelay, type Step } from "./relayWorld.js"

/** The request ids of the final responses the client received, in order. */
const answeredIds = (run: Run) =>
  [...run.toClient.matchAll(/HTTP\/1\.1 (\d{3}) R\r\nx-req: (\d+)\r\n/g)]
    .filter((m) => Number(m[1]) >= 200)
    .map((m) => Number(m[2]))

const oneResponse = (s: Scenario, run: Run) => {
  const { relayed } = clientBytes(s)
  const ids = answeredIds(run)
  // in order, none twice, none without its request
  expect(ids).toEqual(ids.map((_, i) => i))
  expect(ids.length + (run.page === undefined ? 0 : 1)).toBeLessThanOrEqual(relayed)
  // a connection still open has answered every request; one given to Node's server, every one before
  if (run.handOff !== undefined || (!run.closedByRelay && !run.clientGone)) expect(ids.length).toBe(relayed)
}

const inOrder = (s: Scenario, run: Run) => {
  const { bytes, relayed, handOffAt } = clientBytes(s)
  for (const conn of run.conns) {
    if (conn.received === "") continue
    const first = Number(/^[A-Z]+ \/r(\d+) /.exec(conn.received)?.[1] ?? -1)
    expect(first).toBeGreaterThanOrEqual(0)
    let expected = ""
    for (let id = first; id < relayed; id++) expected += forwardedRequest(s.requests[id]!, id)
    expect(conn.received).toBe(expected.slice(0, conn.received.length))
    // each request went to its slug's daemon
    for (const m of conn.received.matchAll(/ \/r\d+ HTTP\/1\.1\r\nHost: (\w+)\.localhost\r\n/g))
      expect(PORTS[m[1]!]).toBe(conn.port)
  }
  let responses = ""
  const boundaries = [""]
  for (let id = 0; id < relayed; id++) {
    responses += clientResponse(s.requests[id]!, id)
    boundaries.push(responses)
  }
  expect(run.toClient).toBe(responses.slice(0, run.toClient.length))
  // the relay's own page comes between two responses
  if (run.page !== undefined) expect(boundaries).toContain(run.toClient)
  if (run.handOff !== undefined) expect(run.handOff.bytes).toBe(bytes.slice(handOffAt, run.handOff.delivered))
}

const bounded = (_s: Scenario, run: Run) => {
  expect(run.overBound).toBeUndefined()
}

const property = (step: Step, check: (s: Scenario, run: Run) => void) =>
  fc.property(scenario, schedule, (s, sched) => check(s, runRelay(step, s, sched)))

/** The three invariants of `step`. */
export const relayProperties = (step: Step) => ({
  "every request gets exactly one response or a close": property(step, oneResponse),
  "bytes are relayed in order, unchanged but for the documented head rewrites": property(step, inOrder),
  "nothing is held beyond the documented bound": property(step, bounded),
})

export type RelayProperty = keyof ReturnType<typeof relayProperties>

export const PARAMS = { seed: 4242, numRuns: 300 }
