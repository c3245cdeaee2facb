// `start --timings` (docs/cli.md): where a start's wall time went, from its event stream as the
// CLI hears it. Per daemon: how long it waited for its dependencies, until its process existed,
// and until it was ready; then the critical chain: the daemons, each waiting on the one before,
// whose times add up to the whole start.
import type { DependencyCondition } from "../domain/Dependency.js"
import type { StartProgress } from "../domain/StartEvent.js"

export interface DaemonTiming {
  readonly id: string
  /** Ms from the start until its dependencies were met (0 without any). */
  readonly waited: number
  /** Ms from then until its process existed. */
  readonly spawn: number
  /** Ms from then until it was ready (or completed, or failed). */
  readonly ready: number
  /** Ms from the start until it settled. */
  readonly at: number
  readonly outcome: string
}

export interface Timings {
  readonly total: number
  readonly daemons: ReadonlyArray<DaemonTiming>
  /** The chain that set the total, first daemon first. */
  readonly chain: ReadonlyArray<DaemonTiming>
}

/** Hears a start's events with the time each came; `result` once the start is over. */
export const timingRecorder = (startedAt: number) => {
  const deps = new Map<
    string,
    ReadonlyArray<{ readonly id: string; readonly condition: DependencyCondition }>
  >()
  const spawned = new Map<string, number>()
  const settled = new Map<string, { readonly at: number; readonly outcome: string }>()
  return {
    hear: (event: StartProgress, index: number, now: number): void => {
      if ("waiting" in event) {
        for (const w of event.waiting) {
          const held = w.dependencies ?? []
          // a daemon held for its dependencies is listed with them; the plan (the first event)
          // lists every daemon; any other mention means its process exists
          if (held.length > 0) {
            if (!deps.has(w.id)) deps.set(w.id, held)
          } else if (index > 0 && !spawned.has(w.id)) spawned.set(w.id, now - startedAt)
        }
      } else if ("outcome" in event) {
        const o = event.outcome
        settled.set(o.id, { at: now - startedAt, outcome: o._tag })
      }
    },
    result: (): Timings => {
      // when a dependency let its dependent go: at its spawn for `started`, else once it settled
      const metBy = (dep: { readonly id: string; readonly condition: DependencyCondition }) =>
        dep.condition === "started" ? (spawned.get(dep.id) ?? 0) : (settled.get(dep.id)?.at ?? 0)
      const daemons = [...settled.entries()]
        .map(([id, s]): DaemonTiming => {
          const met = Math.max(0, ...(deps.get(id) ?? []).map(metBy))
          const spawnedAt = spawned.get(id) ?? s.at
          const waited = Math.min(met, spawnedAt)
          return {
            id,
            waited,
            spawn: spawnedAt - waited,
            ready: s.at - spawnedAt,
            at: s.at,
            outcome: s.outcome,
          }
        })
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      const byId = new Map(daemons.map((d) => [d.id, d]))
      const chain: Array<DaemonTiming> = []
      let current = daemons.at(-1)
      while (current !== undefined && !chain.includes(current)) {
        chain.unshift(current)
        const latest = [...(deps.get(current.id) ?? [])].sort((a, b) => metBy(b) - metBy(a))[0]
        current = latest === undefined || current.waited === 0 ? undefined : byId.get(latest.id)
      }
      return { total: daemons.at(-1)?.at ?? 0, daemons, chain }
    },
  }
}

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`)

/** The table and the critical chain, in lines. */
export const timingLines = (t: Timings): ReadonlyArray<string> => {
  if (t.daemons.length === 0) return []
  const width = Math.max(6, ...t.daemons.map((d) => d.id.length))
  const row = (cells: ReadonlyArray<string>) =>
    `${cells[0]!.padEnd(width)}  ${cells
      .slice(1)
      .map((c) => c.padStart(9))
      .join("  ")}`
  const lines = [row(["DAEMON", "DEPS", "SPAWN", "READY", "AT"])]
  for (const d of t.daemons) lines.push(row([d.id, ms(d.waited), ms(d.spawn), ms(d.ready), ms(d.at)]))
  // along the chain each daemon's wait is the one before it: its own spawn and ready add up
  const steps = t.chain.map(
    (d, i) => `${d.id} (${i === 0 && d.waited > 0 ? `${ms(d.waited)} + ` : ""}${ms(d.spawn + d.ready)})`,
  )
  lines.push(`critical chain: ${steps.join(" → ")} = ${ms(t.total)}`)
  return lines
}
