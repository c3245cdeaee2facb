import { Effect } from "effect"
import { configDefinitions } from "../config/definitions.js"
import { UnknownDaemon } from "../control/selection.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { SupervisorClient } from "./client.js"

export const knownDaemons = Effect.flatMap(SupervisorClient, (c) => c.api.daemons.list()).pipe(Effect.orDie)

/** Definitions for IDs: fresh from the configuration, else what the supervisor last ran. */
export const definitionsFor = (ids: ReadonlyArray<string>, config: ResolvedConfig) =>
  Effect.gen(function* () {
    const fromConfig = configDefinitions(config)
    const c = yield* SupervisorClient
    return yield* Effect.forEach(ids, (id) => {
      const def = fromConfig.get(id)
      if (def) return Effect.succeed(def)
      return c.api.cli
        .definition({ payload: { id } })
        .pipe(
          Effect.mapError(
            () => new UnknownDaemon({ message: `no definition for ${id}: it is not configured here` }),
          ),
        )
    })
  })
