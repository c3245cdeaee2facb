import { Effect, Option } from "effect"
import { configDefinitions } from "../config/definitions.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { SupervisorClient } from "./client.js"
import { rejectFlags, resolveId, UnknownDaemon } from "./resolve.js"

export const knownDaemons = Effect.flatMap(SupervisorClient, (c) => c.api.daemons.list()).pipe(Effect.orDie)

/** The IDs a command acts on: explicit IDs, a group, or --all (`allIds`). */
export const selectIds = (
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
  input: {
    readonly ids: ReadonlyArray<string>
    readonly all: boolean
    readonly group: Option.Option<string>
  },
  allIds: () => ReadonlyArray<string>,
) =>
  Effect.gen(function* () {
    yield* rejectFlags(input.ids)
    if (input.all) return [...allIds()]
    const out: Array<string> = []
    if (Option.isSome(input.group)) {
      const g = config.groups[input.group.value]
      if (!g) {
        const names = Object.keys(config.groups)
        return yield* new UnknownDaemon({
          message: `no group named ${input.group.value}${names.length ? `; groups: ${names.join(", ")}` : ""}`,
        })
      }
      const present = new Set([...Object.keys(config.daemons), ...known.map((k) => k.id.qualified)])
      const missing = g.daemons.filter((d) => !present.has(d))
      if (missing.length > 0) {
        return yield* new UnknownDaemon({
          message: `group ${input.group.value} names ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not configured (${g.source})`,
        })
      }
      out.push(...g.daemons)
    }
    for (const id of input.ids) out.push(yield* resolveId(id, config, known))
    if (out.length === 0) {
      return yield* new UnknownDaemon({ message: "name at least one daemon, or use --all or --group" })
    }
    return [...new Set(out)]
  })

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
