import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Context, Duration, Effect, Either, Layer, Queue, SubscriptionRef } from "effect"
import { ConfigLoader, type LoadError } from "../config/ConfigLoader.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import type { ConfigProblem } from "../domain/ConfigProblem.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { EventLog } from "../events/EventLog.js"
import { MAX_PROJECTS, type PersistentState } from "../state/State.js"
import { StateStore } from "../state/StateStore.js"
import { NamespaceNotForgotten, ProjectUnreadable, RegisterRefused } from "./errors.js"
import { makeFileWatch } from "./fileWatch.js"
import { forgetIn, type KnownProject, knownProjects, sameSnapshot } from "./known.js"
import {
  allDefinitions,
  GLOBAL_DIR,
  type ProjectState,
  problemText,
  projectNamespace,
  type RegistrySnapshot,
  watchedFiles,
} from "./snapshot.js"

export type { ProjectState, RegistrySnapshot } from "./snapshot.js"

/** A daemon as its project configures it now, with the definitions it depends on (transitively). */
export interface Configured {
  readonly def: DaemonDefinition
  readonly dependencies: ReadonlyArray<DaemonDefinition>
}

export interface ProjectRegistryShape {
  /**
   * Notes a directory where a CLI ran a command: the project there is known from then on (kept
   * in the state file, the latest `MAX_PROJECTS`), its daemons listed before they ever ran.
   */
  readonly note: (dir: string) => Effect.Effect<void>
  /**
   * Where `id` is configured now (files are read again first, through the loader's cache): the
   * project registered or configured under its namespace first, then every other known project.
   * A project whose files became invalid answers with its last good configuration. Fails naming
   * the project and the problem when the namespace's project never loaded.
   */
  readonly find: (id: string) => Effect.Effect<Configured | undefined, ProjectUnreadable>
  /** Every known project's daemons, as their last good configurations define them. */
  readonly definitions: Effect.Effect<ReadonlyArray<DaemonDefinition>>
  /** The current snapshot; changes are published as the files change (for watch and cron). */
  readonly snapshot: SubscriptionRef.SubscriptionRef<RegistrySnapshot>
  /** `POST /api/namespaces`: registers the project in `dir` under the namespace it declares. */
  readonly register: (
    dir: string,
  ) => Effect.Effect<{ readonly name: string; readonly dir: string }, RegisterRefused | ProjectUnreadable>
  /** `DELETE /api/namespaces/{name}`: forgets the projects known under that namespace. */
  readonly forget: (
    name: string,
  ) => Effect.Effect<{ readonly name: string; readonly dir: string }, NamespaceNotForgotten>
  /** Reads every known project's files again now (through the loader's cache). */
  readonly reload: Effect.Effect<void>
}

/** The projects the supervisor knows and their live configuration (docs/registry.md). */
export class ProjectRegistry extends Context.Tag("supervisor/ProjectRegistry")<
  ProjectRegistry,
  ProjectRegistryShape
>() {}

export interface ProjectRegistryOptions {
  /** Watch the configuration files (default true); without it, only the interval reloads. */
  readonly watchFiles?: boolean
  /** How long a burst of file events is gathered into one reload (default 100 ms). */
  readonly settle?: Duration.DurationInput
}

const errorProblems = (e: LoadError): ReadonlyArray<ConfigProblem> =>
  "problems" in e && Array.isArray(e.problems) ? e.problems : []

const label = (p: ProjectState) => {
  const ns = projectNamespace(p)
  return p.dir === GLOBAL_DIR ? "the global config" : ns === undefined ? p.dir : `namespace ${ns} (${p.dir})`
}

export const makeProjectRegistry = (options: ProjectRegistryOptions = {}) =>
  Effect.gen(function* () {
    const state = yield* StateStore
    const loader = yield* ConfigLoader
    const events = yield* EventLog
    const { env, settings } = yield* SupervisorConfig
    const home = env.HOME || os.homedir()
    const ref = yield* SubscriptionRef.make<RegistrySnapshot>({ projects: [], settings })
    const lock = yield* Effect.makeSemaphore(1)
    const changes = yield* Queue.unbounded<string>()
    const files = options.watchFiles === false ? undefined : yield* makeFileWatch(changes)

    const seenEmpty = new Set<string>()
    // The loader's last answer for each project: the same object again means the same files, so
    // the project stays as it is without comparing or rebuilding its daemons (a configuration
    // first read while its file was young is cached as a second, equal object).
    const lastRead = new Map<string, ResolvedConfig>()
    const emptyFile = (config: ResolvedConfig) =>
      config.files.some((f) => {
        try {
          return fs.statSync(f.path).size === 0
        } catch {
          return false
        }
      })

    /** A known directory that no longer exists (a removed worktree): not the global config's `/`. */
    const isGone = (dir: string) => {
      if (dir === GLOBAL_DIR) return false
      try {
        return !fs.statSync(dir).isDirectory()
      } catch {
        return true
      }
    }

    // Projects are read with the supervisor's environment, as the CLI that started it would.
    const load = (known: KnownProject, previous: ProjectState | undefined): Effect.Effect<ProjectState> =>
      isGone(known.dir)
        ? // gone: its last configuration stays, so its daemons stay listed until they are pruned
          Effect.succeed({
            ...known,
            config: previous?.config,
            definitions: previous?.definitions ?? new Map(),
            problems: [],
            problem: undefined,
            gone: true,
          })
        : loadHere(known, previous)

    const loadHere = (known: KnownProject, previous: ProjectState | undefined): Effect.Effect<ProjectState> =>
      loader.load({ cwd: known.dir, env }).pipe(
        Effect.either,
        Effect.map((loaded): ProjectState => {
          // A file read between its truncation and its write (an in-place save) is empty: the
          // previous configuration stays until a read after the settle time finds it empty too.
          if (Either.isRight(loaded) && (previous?.definitions.size ?? 0) > 0 && emptyFile(loaded.right)) {
            if (!seenEmpty.has(known.dir)) {
              seenEmpty.add(known.dir)
              Queue.unsafeOffer(changes, known.dir)
              return {
                ...known,
                config: previous?.config,
                definitions: previous?.definitions ?? new Map(),
                problems: previous?.problems ?? [],
                problem: previous?.problem,
              }
            }
          }
          seenEmpty.delete(known.dir)
          const unchanged = Either.isRight(loaded) && lastRead.get(known.dir) === loaded.right
          if (Either.isRight(loaded)) lastRead.set(known.dir, loaded.right)
          else lastRead.delete(known.dir)
          if (unchanged && previous !== undefined && previous.problem === undefined)
            return { ...previous, ...known, gone: undefined }
          if (Either.isRight(loaded))
            return {
              ...known,
              config: loaded.right,
              // the loader's cache gives the same configuration while the files are unchanged
              definitions:
                previous?.config === loaded.right ? previous.definitions : configDefinitions(loaded.right),
              problems: [],
              problem: undefined,
            }
          // invalid now: the last good configuration stays in force
          const problems = errorProblems(loaded.left)
          return {
            ...known,
            config: previous?.config,
            definitions: previous?.definitions ?? new Map(),
            problems,
            problem: problemText(problems) ?? String(loaded.left),
          }
        }),
      )

    /** Publishes a configuration that loaded again, or problems new since the last load. */
    const publishChange = (p: ProjectState, was: ProjectState | undefined) => {
      if (was === undefined) return Effect.void
      // read again but the same (a file too young for the loader's cache): nothing to announce
      const changed = (a: ProjectState["config"], b: ProjectState["config"]) =>
        a !== b && (was.problem !== undefined || JSON.stringify(a) !== JSON.stringify(b))
      if (p.problem === undefined)
        return p.config !== undefined && changed(p.config, was.config)
          ? events.publish({ _tag: "ConfigReloaded", dir: p.dir })
          : Effect.void
      if (p.problem === was.problem) return Effect.void
      const problems: ReadonlyArray<{
        readonly file: string
        readonly line?: number | undefined
        readonly key?: string | undefined
        readonly message: string
      }> = p.problems.length > 0 ? p.problems : [{ file: p.dir, message: p.problem }]
      return Effect.forEach(
        problems,
        (x) =>
          events.publish({
            _tag: "ConfigInvalid",
            file: x.file,
            line: x.line ?? null,
            key: x.key ?? null,
            message: x.message,
          }),
        { discard: true },
      )
    }

    /** Reloads the projects in `only` (every one when absent) and those not loaded yet; publishes a change. */
    const reloadSome = (only?: ReadonlySet<string>) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const before = yield* SubscriptionRef.get(ref)
          const previous = new Map(before.projects.map((p) => [p.dir, p]))
          const stale = (dir: string) => only === undefined || only.has(dir) || !previous.has(dir)
          const refresh = (known: KnownProject) => {
            const was = previous.get(known.dir)
            return was !== undefined && !stale(known.dir)
              ? Effect.succeed({ ...was, sources: known.sources, names: known.names })
              : load(known, was)
          }
          const global = yield* refresh({ dir: GLOBAL_DIR, sources: ["global"], names: [] })
          const list = knownProjects(yield* state.get, global.config?.namespaces ?? {})
          const projects = yield* Effect.forEach(
            list,
            (k) => (k.dir === GLOBAL_DIR ? Effect.succeed({ ...global, ...k }) : refresh(k)),
            { concurrency: 4 },
          )
          for (const p of projects) {
            const was = previous.get(p.dir)?.problem
            yield* publishChange(p, previous.get(p.dir))
            if (p.problem === was) continue
            if (p.problem !== undefined)
              yield* Effect.logWarning(
                `the configuration of ${label(p)} is invalid; ${
                  p.config === undefined
                    ? "none was loaded yet"
                    : "its last good configuration stays in force"
                }:\n${p.problem}`,
              )
            else yield* Effect.logInfo(`the configuration of ${label(p)} is valid again`)
          }
          const next: RegistrySnapshot = { projects, settings: global.config?.settings ?? before.settings }
          if (!sameSnapshot(before, next)) yield* SubscriptionRef.set(ref, next)
          if (files !== undefined) yield* files.setPaths(projects.flatMap((p) => watchedFiles(p, env, home)))
        }),
      )
    const reload = reloadSome()

    const find = (id: string) =>
      Effect.gen(function* () {
        const slash = id.indexOf("/")
        if (slash < 0) return undefined
        const namespace = id.slice(0, slash)
        yield* reload
        const { projects } = yield* SubscriptionRef.get(ref)
        const named = projects.filter((p) => p.names.includes(namespace))
        for (const p of [...named, ...projects.filter((p) => !named.includes(p))]) {
          const def = p.definitions.get(id)
          if (def !== undefined)
            return { def, dependencies: dependencyClosure([def], p.definitions) } satisfies Configured
        }
        const broken = named.find((p) => p.config === undefined && p.problem !== undefined)
        if (broken !== undefined) {
          const problem = broken.problem?.replaceAll("\n", " ") ?? ""
          return yield* new ProjectUnreadable({
            dir: broken.dir,
            namespace,
            problem,
            message: `cannot read the configuration of ${label(broken)}: ${problem}`,
          })
        }
        return undefined
      })

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
          yield* reloadSome(new Set([absolute]))
        }),
      find,
      definitions: Effect.map(SubscriptionRef.get(ref), allDefinitions),
      snapshot: ref,
      register: (given) =>
        Effect.gen(function* () {
          if (!nodePath.isAbsolute(given))
            return yield* new RegisterRefused({
              dir: given,
              reason: "not_absolute",
              message: `dir must be an absolute path, got ${JSON.stringify(given)}`,
            })
          const dir = nodePath.resolve(given)
          const loaded = yield* loader.load({ cwd: dir, env }).pipe(Effect.either)
          if (Either.isLeft(loaded)) {
            const problems = errorProblems(loaded.left)
            const detail = (problems.length > 0 ? problemText(problems) : String(loaded.left)) ?? ""
            const problem = detail.replaceAll("\n", " ")
            return yield* new ProjectUnreadable({
              dir,
              problem,
              message: `cannot read the configuration of ${dir}: ${problem}`,
            })
          }
          const name = loaded.right.namespace
          if (name === undefined)
            return yield* new RegisterRefused({
              dir,
              reason: "no_config",
              message: `no project configuration (supervisor.toml) in ${dir} or above it`,
            })
          yield* state.update((s) => ({ ...s, namespaces: { ...s.namespaces, [name]: dir } }))
          yield* reloadSome(new Set([dir]))
          return { name, dir }
        }),
      forget: (name) =>
        Effect.gen(function* () {
          const { projects } = yield* SubscriptionRef.get(ref)
          const result = forgetIn(yield* state.get, projects, name)
          if (result instanceof NamespaceNotForgotten) return yield* result
          yield* state.update((s: PersistentState) => {
            const forgotten = forgetIn(s, projects, name)
            return forgotten instanceof NamespaceNotForgotten ? s : forgotten.state
          })
          yield* reload
          return { name, dir: result.dir }
        }),
      reload,
    }

    yield* reload
    // File events: a burst (an editor's save, a checkout) gives one reload.
    const settle = options.settle ?? "100 millis"
    yield* Queue.take(changes).pipe(
      Effect.zipRight(Effect.sleep(settle)),
      Effect.zipRight(Queue.takeAll(changes)),
      Effect.zipRight(reload),
      Effect.catchAllCause((cause) => Effect.logError("reloading the configurations failed", cause)),
      Effect.forever,
      Effect.forkScoped,
    )
    // And at least every settings.supervisor.watch_interval, as the settings in force say now.
    yield* SubscriptionRef.get(ref).pipe(
      Effect.flatMap((s) =>
        Effect.sleep(
          Duration.max(Duration.decode(s.settings.supervisor.watch_interval), Duration.millis(100)),
        ),
      ),
      Effect.zipRight(reload),
      Effect.catchAllCause((cause) => Effect.logError("reloading the configurations failed", cause)),
      Effect.forever,
      Effect.forkScoped,
    )
    return registry
  })

export const ProjectRegistryLayer = (options: ProjectRegistryOptions = {}) =>
  Layer.scoped(ProjectRegistry, makeProjectRegistry(options))

export const ProjectRegistryLive = ProjectRegistryLayer()
