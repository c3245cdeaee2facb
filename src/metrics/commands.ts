// `supervisor_commands_total{command,source}`: the commands Control handled (src/control/handle.ts
// counts each with Effect's Metric), read from Effect's metric registry at each scrape.
import { Effect, Metric, MetricState } from "effect"
import type { Family } from "./text.js"

const NAME = "supervisor_commands_total"

export const commandsFamily: Effect.Effect<Family> = Effect.map(Metric.snapshot, (pairs) => ({
  name: NAME,
  type: "counter",
  help: "Commands handled by the supervisor, by command and by who asked",
  samples: pairs.flatMap((pair) => {
    if (pair.metricKey.name !== NAME || !MetricState.isCounterState(pair.metricState)) return []
    const labels: Record<string, string> = {}
    for (const tag of pair.metricKey.tags) labels[tag.key] = tag.value
    return [{ labels, value: Number(pair.metricState.count) }]
  }),
}))
