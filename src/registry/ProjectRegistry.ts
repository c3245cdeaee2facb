import * as nodePath from "node:path"
import { Context, Effect, Layer } from "effect"
import { ConfigLoader, type LoadError } from "../config/ConfigLoader.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { MAX_PROJECTS } from "../state/State.js"
import { StateStore } from "../state/StateStore.js"
import { SupervisorConfig } from "../supervisor/SupervisorConfig.js"

/** A daemon as its project configures it now, with the definitions it depends on (transitively). */
export interface Configured {
  readonly def: DaemonDefinition
  readonly dependencies: ReadonlyArray<DaemonDefinition>
}

export interface ProjectRegistryShape {
  /**
   * Notes a directory where a CLI ran a command: the daemons its configuration declares are
   * known from then on, before they ever ran (kept in the state file, the latest `MAX_PROJECTS`).
   */
  readonly note: (dir: string) => Effect.Effect<void>
  /**
   * Where `id` is configured now: the registered namespace's project first, then the noted
   * directories, latest first. Undefined when none configures it; fails with a message naming
   * the file and the problem when its namespace's registered project cannot be read.
   */
  readonly find: (id: string) => Effect.Effect<Configured | undefined, string>
  /**
   * The daemons of the registered namespaces' projects that can be read (each its own
   * namespace's): listings show them before they ever ran. Noted directories are not listed: a
   * project's listing is its own (`supervisor list` there).
   */
  readonly registered: Effect.Effect<ReadonlyArray<DaemonDefinition>>
}

/** The projects the supervisor knows: registered namespaces (`POST /api/namespaces`) and noted directories. */
export class ProjectRegistry extends Context.Tag("supervisor/ProjectRegistry")<
  ProjectRegistry,
  ProjectRegistryShape
>() {}

const describeLoadError = (what: string, e: LoadError) =>
  `cannot read the configuration of ${what}: ${
    "problems" in e && Array.isArray(e.problems) ? e.problems.map(formatProblem).join("; ") : String(e)
  }`

export const ProjectRegistryLive = Layer.effect(
  ProjectRegistry,
  Effect.gen(function* () {
    const state = yield* StateStore
    const loader = yield* ConfigLoader
    const { env } = yield* SupervisorConfig
    // The projects are read with the supervisor's environment, as the CLI that started it would.
    const definitionsIn = (dir: string, what = dir) =>
      loader.load({ cwd: dir, env }).pipe(
        Effect.map(configDefinitions),
        Effect.mapError((e) => describeLoadError(what, e)),
      )
    const registeredDir = (namespace: string) =>
      state.get.pipe(
        // own keys only: `constructor/x` must not find Object.prototype.constructor
        Effect.map((s) => (Object.hasOwn(s.namespaces, namespace) ? s.namespaces[namespace] : undefined)),
      )
    const configuredIn = (
      defs: ReadonlyMap<string, DaemonDefinition>,
      id: string,
    ): Configured | undefined => {
      const def = defs.get(id)
      return def === undefined ? undefined : { def, dependencies: dependencyClosure([def], defs) }
    }

    const registry: ProjectRegistryShape = {
      note: (dir) =>
        Effect.gen(function* () {
          const absolute = nodePath.resolve(dir)
          if ((yield* state.get).projects.includes(absolute)) return
          yield* state.record((s) =>
            s.projects.includes(absolute)
              ? s
              : { ...s, projects: [...s.projects, absolute].slice(-MAX_PROJECTS) },
          )
        }),
      find: (id) =>
        Effect.gen(function* () {
          const slash = id.indexOf("/")
          if (slash < 0) return undefined
          const namespace = id.slice(0, slash)
          const dir = yield* registeredDir(namespace)
          if (dir !== undefined) {
            const found = configuredIn(yield* definitionsIn(dir, `namespace ${namespace} (${dir})`), id)
            if (found !== undefined) return found
          }
          for (const project of [...(yield* state.get).projects].reverse()) {
            const defs = yield* definitionsIn(project).pipe(Effect.orElseSucceed(() => undefined))
            const found = defs === undefined ? undefined : configuredIn(defs, id)
            if (found !== undefined) return found
          }
          return undefined
        }),
      registered: Effect.gen(function* () {
        const out: Array<DaemonDefinition> = []
        // an unreadable project is left out of the listing (starting it says why)
        for (const [namespace, dir] of Object.entries((yield* state.get).namespaces)) {
          const defs = yield* definitionsIn(dir).pipe(Effect.orElseSucceed(() => new Map()))
          out.push(...[...defs.values()].filter((d) => d.id.namespace === namespace))
        }
        return out
      }),
    }
    return registry
  }),
)
