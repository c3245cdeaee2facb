import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

/** The daemons of a resolved configuration as definitions the supervisor can start. */
export const configDefinitions = (config: ResolvedConfig): Map<string, DaemonDefinition> =>
  new Map(
    Object.values(config.daemons).map((d) => [
      d.id.qualified,
      { id: d.id, config: d.config, adhoc: false, source: d.source } satisfies DaemonDefinition,
    ]),
  )
