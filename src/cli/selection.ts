import { Effect } from "effect"
import { SupervisorClient } from "./client.js"

/** Every daemon the supervisor knows: what the CLI shows and resolves typed IDs against. */
export const knownDaemons = Effect.flatMap(SupervisorClient, (c) =>
  c.api.daemons.list({ urlParams: {} }),
).pipe(Effect.orDie)
