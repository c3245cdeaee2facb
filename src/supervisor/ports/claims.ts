import { Effect } from "effect"
import { isActive } from "../../domain/DaemonStatus.js"
import type { DaemonState } from "../DaemonState.js"
import type { PortCheck } from "./availability.js"

const IN_USE: PortCheck = { free: false, reason: "in-use" }

/**
 * Ports given to a starting daemon count as taken for the others until it stops, although nothing
 * listens on them yet: instances of a replicated daemon started together (api.2 bumped onto
 * api.3's port) would otherwise be given the same one. One resolution at a time.
 */
export const makePortClaims = (
  known: Effect.Effect<ReadonlyMap<string, DaemonState>>,
  check: (port: number) => Effect.Effect<PortCheck>,
) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    /** daemon ID -> the ports its latest resolution gave it */
    const claims = new Map<string, ReadonlyArray<number>>()
    return <A extends { readonly ports: ReadonlyArray<number> }, E>(
      id: string,
      resolve: (check: (port: number) => Effect.Effect<PortCheck>) => Effect.Effect<A, E>,
    ): Effect.Effect<A, E> =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const all = yield* known
          const taken = new Set<number>()
          for (const [other, ports] of claims) {
            const r = all.get(other)
            if (r === undefined) claims.delete(other)
            if (other === id || r === undefined || !isActive(r)) continue
            for (const p of ports) taken.add(p)
          }
          const resolved = yield* resolve((port) => (taken.has(port) ? Effect.succeed(IN_USE) : check(port)))
          claims.set(id, resolved.ports)
          return resolved
        }),
      )
  })
