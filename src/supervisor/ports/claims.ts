import { Effect } from "effect"
import { type DaemonStatus, isActive } from "../../domain/DaemonStatus.js"
import type { DaemonState } from "../DaemonState.js"
import type { PortCheck } from "./availability.js"

const IN_USE: PortCheck = { free: false, reason: "in-use" }

interface Claim {
  readonly ports: ReadonlyArray<number>
  /** The daemon's status when it claimed them: the same one means it has not spawned yet. */
  readonly status: DaemonStatus | undefined
}

/**
 * Ports given to a starting daemon count as taken for the others, although nothing listens on
 * them yet, until it stops (or its start fails): instances of a replicated daemon started together
 * (api.2 bumped onto api.3's port) would otherwise be given the same one. One resolution at a time.
 */
export const makePortClaims = (
  known: Effect.Effect<ReadonlyMap<string, DaemonState>>,
  check: (port: number) => Effect.Effect<PortCheck>,
) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    /** daemon ID -> the ports its latest resolution gave it */
    const claims = new Map<string, Claim>()
    /** Whether a claim still holds: its daemon runs, or is between its resolution and its spawn. */
    const holds = (claim: Claim, r: DaemonState | undefined) =>
      r === undefined ? claim.status === undefined : isActive(r) || r.status === claim.status
    return <A extends { readonly ports: ReadonlyArray<number> }, E>(
      id: string,
      resolve: (check: (port: number) => Effect.Effect<PortCheck>) => Effect.Effect<A, E>,
    ): Effect.Effect<A, E> =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const all = yield* known
          const taken = new Set<number>()
          for (const [other, claim] of claims) {
            if (other === id) continue
            if (!holds(claim, all.get(other))) {
              claims.delete(other)
              continue
            }
            for (const p of claim.ports) taken.add(p)
          }
          const resolved = yield* resolve((port) => (taken.has(port) ? Effect.succeed(IN_USE) : check(port)))
          claims.set(id, { ports: resolved.ports, status: all.get(id)?.status })
          return resolved
        }),
      )
  })
