// A command's selection (src/domain/Command.ts) resolved to qualified IDs, once, here: IDs as
// typed in a CLI's directory, a group, `all`, or the daemons of the project or global files.
import { Effect, Either, Option } from "effect"
import type { ConfigLoaderShape } from "../config/ConfigLoader.js"
import type { ScaledCounts } from "../config/replicas.js"
import { withSlugProjects as withProjects } from "../config/slugProjects.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { From, Selection } from "../domain/Command.js"
import { ConfigUnusable, DaemonNotFound, UnknownDaemon, UsageError } from "../domain/CommandErrors.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { ProjectRegistryShape } from "../registry/ProjectRegistry.js"
import { withInstances } from "./instances.js"
import { scopedIds, scopeOf, selectIds } from "./selection.js"

/** What `all` (and `files`) mean: every daemon configured, or every daemon that runs. */
export type AllMeans = "configured" | "running"

export interface Selected {
  /** Qualified IDs, in the order selected. */
  readonly ids: ReadonlyArray<string>
  /** The configuration seen from the command's directory (with the projects of typed slugs). */
  readonly config: ResolvedConfig | undefined
}

export interface SelectDeps {
  readonly loader: ConfigLoaderShape
  readonly projects: ProjectRegistryShape
  /** Every daemon the supervisor knows or a known project configures. */
  readonly known: Effect.Effect<ReadonlyArray<ApiDaemonEntry>>
  /** Every daemon that runs now. */
  readonly running: Effect.Effect<ReadonlyArray<string>>
  /** The counts `supervisor scale` set, replacing the configured `instances` (docs/replicas.md). */
  readonly scaled: Effect.Effect<ScaledCounts>
  /** The directory of a project directory in its git worktree labelled `label` (`gitWorktreeDir`). */
  readonly worktreeDir?: (main: string, label: string) => Effect.Effect<string | undefined>
  /**
   * Whether `id` names exactly one daemon the supervisor knows (it ran, or a known project
   * configures it) and no replicated daemon: such a qualified ID is selected without `known`.
   */
  readonly oneDaemon?: (id: string) => Effect.Effect<boolean>
}

type SelectError = UnknownDaemon | UsageError | DaemonNotFound | ConfigUnusable

const messageOf = (e: unknown) =>
  typeof e === "object" && e !== null && "message" in e ? String(e.message) : String(e)

/**
 * The configuration seen from a directory; its errors (and, strict, its warnings and a setting
 * only the full CLI applies) fail.
 */
export const loadFrom = (deps: SelectDeps, from: Extract<From, { _tag: "Directory" }>) =>
  Effect.gen(function* () {
    yield* deps.projects.note(from.cwd)
    const loaded = yield* Effect.either(deps.loader.load({ cwd: from.cwd, env: from.env }))
    if (Either.isLeft(loaded))
      return yield* new ConfigUnusable({ message: messageOf(loaded.left), warnings_only: false })
    if (from.strict && loaded.right.warnings.length > 0)
      return yield* new ConfigUnusable({ message: loaded.right.warnings.join("\n"), warnings_only: true })
    // nor can it put the time before its lines (`settings.general.startup_log_timestamps`)
    if (from.strict && loaded.right.settings.general.startup_log_timestamps)
      return yield* new ConfigUnusable({
        message: "settings.general.startup_log_timestamps is the full CLI's to apply",
        warnings_only: false,
      })
    return loaded.right
  })

/** `config` with the daemons of each project a typed slug points to, read with the command's environment. */
const withSlugProjects = (
  deps: SelectDeps,
  config: ResolvedConfig,
  ids: ReadonlyArray<string>,
  env: Record<string, string>,
) => withProjects(config, ids, (dir) => deps.loader.load({ cwd: dir, env }), deps.worktreeDir)

/** An ID without a directory: qualified, or `name` of the namespace, or the only `*\/name`. */
const resolveKnown = (
  typed: string,
  namespace: string | undefined,
  known: ReadonlyArray<ApiDaemonEntry>,
): Effect.Effect<string, UnknownDaemon | UsageError | DaemonNotFound> => {
  if (typed.startsWith("-")) return Effect.fail(new UsageError({ message: `unknown option ${typed}` }))
  // a replicated daemon is known by its instances
  const ids = [
    ...known.map((k) => k.id.qualified),
    ...known.flatMap((k) => (k.instance ? [k.instance.daemon] : [])),
  ]
  const wanted = typed.includes("/") ? typed : namespace === undefined ? undefined : `${namespace}/${typed}`
  if (wanted !== undefined)
    return ids.includes(wanted)
      ? Effect.succeed(wanted)
      : Effect.fail(
          new DaemonNotFound({
            id: wanted,
            message: `no daemon ${JSON.stringify(wanted)} is known to the supervisor`,
          }),
        )
  const candidates = ids.filter((q) => q.endsWith(`/${typed}`)).sort()
  if (candidates.length === 1) return Effect.succeed(candidates[0]!)
  return Effect.fail(
    candidates.length > 1
      ? new UnknownDaemon({
          message: `${typed} is ambiguous: ${candidates.join(", ")}; use the qualified ID`,
        })
      : new DaemonNotFound({
          id: typed,
          message: `no daemon ${JSON.stringify(typed)} is known to the supervisor`,
        }),
  )
}

/**
 * Resolves a selection: from a directory as the CLI there would (its configuration, groups, slugs
 * and short IDs), from a namespace (short IDs are its daemons'), or from nowhere (qualified IDs,
 * or a name only one namespace has). `all` and `files` mean the configured daemons, or with
 * `allMeans: "running"` those of them that run (every running daemon for a bare `all`).
 * `noneHint`: the usage error of an empty selection.
 */
export const selectFor = (
  deps: SelectDeps,
  selection: Selection,
  allMeans: AllMeans,
  noneHint?: string,
): Effect.Effect<Selected, SelectError> =>
  Effect.gen(function* () {
    // qualified IDs of single daemons (what the API, the web page and the dashboard send): the
    // listing of every known daemon is not built for them
    const { oneDaemon } = deps
    if (
      oneDaemon !== undefined &&
      selection.from === undefined &&
      !selection.all &&
      selection.group === undefined &&
      selection.files === undefined &&
      selection.ids.length > 0 &&
      selection.ids.every((id) => id.includes("/") && !id.startsWith("-"))
    ) {
      const ids = [...new Set(selection.ids)]
      if ((yield* Effect.forEach(ids, oneDaemon)).every(Boolean)) return { ids, config: undefined }
    }
    const selected = yield* selectDaemons(deps, selection, allMeans, noneHint)
    // a daemon its configuration runs as one process needs no look at the instances known
    const config = selected.config
    const plain = (id: string) =>
      config?.daemons[id] !== undefined && config.daemons[id].config.instances === undefined
    if (selected.ids.every(plain)) return selected
    const ids = withInstances(selected.ids, config, yield* deps.known, yield* deps.scaled, allMeans)
    return { ids, config }
  })

/** `selectFor` with a replicated daemon left as its own ID, not its instances (`scale` acts on it). */
export const selectDaemons = (
  deps: SelectDeps,
  selection: Selection,
  allMeans: AllMeans,
  noneHint?: string,
): Effect.Effect<Selected, SelectError> =>
  Effect.gen(function* () {
    const from = selection.from
    const scope = yield* scopeOf({
      ids: selection.ids,
      all: selection.all,
      group: Option.fromNullable(selection.group),
      local: selection.files === "local",
      global: selection.files === "global",
    })
    // `stop --all` needs no configuration: every running daemon, even where the files are broken
    if (allMeans === "running" && selection.all && Option.isNone(scope) && from?._tag !== "Namespace") {
      // a strict client (the quick one) must not pass over what the full CLI warns of there
      if (from?._tag === "Directory" && from.strict) yield* loadFrom(deps, from)
      return { ids: yield* deps.running, config: undefined }
    }
    if (from?._tag !== "Directory") {
      if (selection.group !== undefined || Option.isSome(scope))
        return yield* new UsageError({
          message: "a group or the local/global files are read from a directory: give `from`",
        })
      const known = yield* deps.known
      const namespace = from?._tag === "Namespace" ? from.namespace : undefined
      const inNamespace = (id: string) => namespace === undefined || id.startsWith(`${namespace}/`)
      if (selection.all) {
        const pool = allMeans === "running" ? yield* deps.running : known.map((k) => k.id.qualified)
        return { ids: pool.filter(inNamespace).sort(), config: undefined }
      }
      if (selection.ids.length === 0)
        return yield* new UsageError({
          message: noneHint ?? "No daemon ID specified: name one or more daemons, or use --all or --group",
        })
      const ids = yield* Effect.forEach(selection.ids, (id) => resolveKnown(id, namespace, known))
      return { ids: [...new Set(ids)], config: undefined }
    }
    const config = yield* withSlugProjects(deps, yield* loadFrom(deps, from), selection.ids, from.env)
    const known = yield* deps.known
    const running = allMeans === "running" ? yield* deps.running : []
    if (Option.isSome(scope)) {
      const ids = scopedIds(config, scope.value)
      return { ids: allMeans === "running" ? ids.filter((id) => running.includes(id)) : ids, config }
    }
    const ids = yield* selectIds(
      config,
      known,
      { ids: selection.ids, all: selection.all, group: Option.fromNullable(selection.group) },
      () => (allMeans === "running" ? running : Object.keys(config.daemons)),
      noneHint,
    )
    return { ids, config }
  })
