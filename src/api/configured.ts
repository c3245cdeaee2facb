import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { makeConfigCache } from "../config/cache.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { mergeDefinitions } from "./listing.js"

/**
 * The daemons configured in the registered namespaces (`POST /api/namespaces`): the supervisor
 * reads those projects' configuration itself (as the CLI would from their directory, with the
 * supervisor's environment), so that the API lists their daemons that never ran and can start
 * them, with their dependencies, from their current definitions.
 */
export const makeConfigured = (
  state: StateStoreShape,
  env: Readonly<Record<string, string | undefined>>,
  fs: FileSystem.FileSystem,
) => {
  const load = makeConfigCache()

  /** The definitions seen from a registered namespace's directory; undefined when none is registered. */
  const definitionsOf = (namespace: string) =>
    Effect.gen(function* () {
      const namespaces = (yield* state.get).namespaces
      // own keys only: `constructor/x` must not find Object.prototype.constructor
      const dir = Object.hasOwn(namespaces, namespace) ? namespaces[namespace] : undefined
      if (dir === undefined) return undefined
      return yield* load({ cwd: dir, env }).pipe(
        Effect.map(configDefinitions),
        Effect.mapError(
          (e) =>
            `cannot read the configuration of namespace ${namespace} (${dir}): ${
              "problems" in e && Array.isArray(e.problems)
                ? e.problems.map(formatProblem).join("; ")
                : String(e)
            }`,
        ),
        Effect.provideService(FileSystem.FileSystem, fs),
      )
    })

  return {
    /**
     * The current definition of `id` and the definitions it depends on, when its namespace is
     * registered and configures it; undefined otherwise. Fails with a message when the
     * configuration cannot be read.
     */
    forStart: (id: string) =>
      Effect.gen(function* () {
        const slash = id.indexOf("/")
        if (slash < 0) return undefined
        const defs = yield* definitionsOf(id.slice(0, slash))
        const def = defs?.get(id)
        if (defs === undefined || def === undefined) return undefined
        return { def, dependencies: dependencyClosure([def], defs) as ReadonlyArray<DaemonDefinition> }
      }),

    /** Whether `id` is configured in its registered namespace (false when that cannot be read). */
    has: (id: string) =>
      Effect.gen(function* () {
        const slash = id.indexOf("/")
        if (slash < 0) return false
        const defs = yield* definitionsOf(id.slice(0, slash)).pipe(Effect.orElseSucceed(() => undefined))
        return defs?.has(id) ?? false
      }),

    /** `known` plus the daemons of the registered namespaces that it lacks (`available`, `disabled`). */
    listing: (known: ReadonlyArray<ApiDaemonEntry>, disabledIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        let entries: Array<ApiDaemonEntry> = [...known]
        for (const namespace of Object.keys((yield* state.get).namespaces)) {
          // an unreadable project is left out of the listing (starting it says why)
          const defs = yield* definitionsOf(namespace).pipe(Effect.orElseSucceed(() => undefined))
          if (defs === undefined) continue
          const own = [...defs.values()].filter((d) => d.id.namespace === namespace)
          entries = mergeDefinitions(entries, disabledIds, own)
        }
        return entries
      }),
  }
}
