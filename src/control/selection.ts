import * as nodePath from "node:path"
import { Effect, Either, Option } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { UnknownDaemon, UsageError } from "../domain/CommandErrors.js"
import { parseDaemonRef } from "../domain/DaemonId.js"
import { instanceIds } from "../domain/Instances.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { hostLabelOf, projectRootOf, worktreeSlugOf } from "../domain/slugs.js"
import { nearest } from "../domain/suggest.js"
import { fileHint } from "./fileHint.js"

// typed failures of the command protocol (src/domain/CommandErrors.ts); UsageError is bad
// command-line usage that @effect/cli let through (a flag swallowed by repeated IDs): exit 2
export { UnknownDaemon, UsageError }

/** Repeated ID arguments swallow unknown flags (EFFECT-V3.md §7): reject them as usage errors. */
export const rejectFlags = (inputs: ReadonlyArray<string>): Effect.Effect<void, UsageError> => {
  const flag = inputs.find((i) => i.startsWith("-"))
  return flag === undefined ? Effect.void : Effect.fail(new UsageError({ message: `unknown option ${flag}` }))
}

/** The namespace that short IDs mean here: the nearest config file's, else the directory's name. */
export const currentNamespace = (config: ResolvedConfig): string =>
  config.namespace ?? nodePath.basename(config.cwd)

/**
 * The namespaces of a project: those of the project files loaded there, and the namespace
 * short IDs mean there (the directory's name without a file), where `run` puts ad-hoc daemons.
 */
export const projectNamespaces = (config: ResolvedConfig): Array<string> => [
  ...new Set([
    ...config.files.filter((f) => f.level === "project").map((f) => f.namespace),
    currentNamespace(config),
  ]),
]

/**
 * The daemons a slug of the user config (`[slugs]`) names: the slug's daemon name, configured in
 * the slug's project directory; undefined when `input` is no slug.
 */
const slugTargets = (
  input: string,
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
): ReadonlyArray<string> | undefined => {
  const slug = Object.hasOwn(config.slugs, input) ? config.slugs[input] : undefined
  if (slug === undefined) return undefined
  const root = nodePath.resolve(slug.dir)
  const declared = [
    ...Object.values(config.daemons).map((d) => [d.id.qualified, d.id.name, d.source] as const),
    ...known.map((e) => [e.id.qualified, e.id.name, e.source] as const),
  ]
  const ids = declared
    .filter(([, name, source]) => name === slug.daemon && source !== null && projectRootOf(source) === root)
    .map(([q]) => q)
  return [...new Set(ids)].sort()
}

/**
 * The daemons `<worktree>.<slug>` names, as the proxy's host name of that worktree does: the
 * slug's daemon configured in that worktree of the slug's project; undefined when `input` is no
 * such pair.
 */
const worktreeSlugTargets = (
  input: string,
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
): ReadonlyArray<string> | undefined => {
  if (worktreeSlugOf(input, config.slugs) === undefined) return undefined
  const ids = [...Object.values(config.daemons), ...known]
    .filter((d) => hostLabelOf(d, config.slugs) === input)
    .map((d) => d.id.qualified)
  return [...new Set(ids)].sort()
}

/**
 * Resolves what a user typed: a qualified ID works from anywhere; a short one
 * means the current namespace first, then the only daemon of that name in any
 * namespace, then the daemon a slug of that name points to (pitchfork's slugs as IDs: a real
 * daemon's name wins over a slug), or `<worktree>.<slug>` to it in one of its project's
 * worktrees. Ambiguity and unknown names are errors that list the candidates.
 */
export const resolveId = (
  input: string,
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
): Effect.Effect<string, UnknownDaemon | UsageError> =>
  Effect.gen(function* () {
    yield* rejectFlags([input])
    const all = new Set([
      ...Object.keys(config.daemons),
      // a replicated daemon's configured instances, before the supervisor lists them
      ...Object.values(config.daemons).flatMap((d) =>
        d.config.instances === undefined ? [] : instanceIds(d.id.qualified, d.config.instances),
      ),
      ...known.map((d) => d.id.qualified),
    ])
    const parsed = parseDaemonRef(input, currentNamespace(config))
    if (Either.isLeft(parsed)) {
      // `./run.sh` is no ID at all: say how to run the file rather than why it is no ID
      const file = fileHint(input, config.cwd)
      return yield* new UnknownDaemon({
        message: file === undefined ? parsed.left : `daemon ${input} not found; ${file}`,
      })
    }
    const id = parsed.right
    if (input.includes("/")) {
      if (all.has(id.qualified)) return id.qualified
      return yield* new UnknownDaemon({
        message: notFound(id.qualified, input, all, config),
      })
    }
    if (all.has(id.qualified)) return id.qualified
    const candidates = [...all].filter((q) => q.endsWith(`/${input}`)).sort()
    if (candidates.length === 1) return candidates[0]!
    const viaSlug = slugTargets(input, config, known) ?? worktreeSlugTargets(input, config, known)
    if (viaSlug !== undefined && viaSlug.length === 1) return viaSlug[0]!
    if (viaSlug !== undefined && candidates.length === 0) {
      const pair = worktreeSlugOf(input, config.slugs)
      if (pair !== undefined) {
        const slug = config.slugs[pair.slug]!
        return yield* new UnknownDaemon({
          message:
            viaSlug.length === 0
              ? `${input}: no worktree ${pair.label} of slug ${pair.slug}'s project ${slug.dir} configures daemon ${slug.daemon} (\`git worktree list\` there lists its worktrees)`
              : `${input} names daemon ${slug.daemon} in worktree ${pair.label}, which is ambiguous: ${viaSlug.join(", ")}; use the qualified ID`,
        })
      }
      const slug = config.slugs[input]!
      return yield* new UnknownDaemon({
        message:
          viaSlug.length === 0
            ? `slug ${input} names daemon ${slug.daemon} of ${slug.dir}, which is not configured there (\`supervisor proxy status\` lists the slugs)`
            : `slug ${input} names daemon ${slug.daemon}, which is ambiguous: ${viaSlug.join(", ")}; use the qualified ID`,
      })
    }
    if (candidates.length > 1) {
      return yield* new UnknownDaemon({
        message: `${input} is ambiguous: ${candidates.join(", ")}; use the qualified ID`,
      })
    }
    return yield* new UnknownDaemon({ message: notFound(input, input, all, config) })
  })

/** How many of the closest IDs an unknown daemon's message names. */
const NEAREST_IDS = 3

/**
 * `daemon web not found`, as pitchfork says it, with the closest IDs as they would be typed from
 * here (a short name for the current namespace's daemons, else the qualified ID) and how to list
 * them; not every daemon of every project. A file (`start server.js`) gets how to run it.
 */
const notFound = (shown: string, typed: string, all: ReadonlySet<string>, config: ResolvedConfig): string => {
  const namespace = currentNamespace(config)
  const ids = [...all].sort()
  const nameOf = (q: string) => q.slice(q.indexOf("/") + 1)
  // this namespace's daemons first: among equally close ones they are the likelier meant
  const here = ids.filter((q) => q.startsWith(`${namespace}/`))
  const ordered = [...here, ...ids.filter((q) => !here.includes(q))]
  const near = nearest(typed, ordered, NEAREST_IDS, typed.includes("/") ? (q) => q : nameOf).map((q) =>
    here.includes(q) && !typed.includes("/") ? nameOf(q) : q,
  )
  const file = fileHint(typed, config.cwd)
  if (file !== undefined) return `daemon ${shown} not found; ${file}`
  if (ids.length === 0) return `daemon ${shown} not found (no daemons configured here)`
  const hint = near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""
  return `daemon ${shown} not found${hint} (\`supervisor list\` lists the daemons)`
}

/** Which configuration files `--local` and `--global` mean. */
export type Scope = "local" | "global"

/**
 * `--local`/`--global` (pitchfork's `-l`/`-g`): the scope asked for; a usage error with IDs,
 * `--all`, `--group` or both scopes.
 */
export const scopeOf = (input: {
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: Option.Option<string>
  readonly local: boolean
  readonly global: boolean
}): Effect.Effect<Option.Option<Scope>, UsageError> => {
  if (!input.local && !input.global) return Effect.succeed(Option.none())
  const flag = input.local ? "--local" : "--global"
  // every other selection given, each named (`start --all --local web` names --all and the IDs)
  const others = [
    ...(input.local && input.global ? ["--global"] : []),
    ...(input.all ? ["--all"] : []),
    ...(Option.isSome(input.group) ? ["--group"] : []),
    ...(input.ids.length > 0 ? [`daemon IDs (${input.ids.join(" ")})`] : []),
  ]
  return others.length === 0
    ? Effect.succeed(Option.some(input.local ? "local" : "global"))
    : Effect.fail(new UsageError({ message: `${flag} cannot be combined with ${others.join(" or ")}` }))
}

/** The daemons of the project files (`local`) or of the global files (`global`), sorted. */
export const scopedIds = (config: ResolvedConfig, scope: Scope): Array<string> => {
  const levels = new Map(config.files.map((f) => [f.path, f.level] as const))
  return Object.values(config.daemons)
    .filter((d) => (levels.get(d.source) === "project") === (scope === "local"))
    .map((d) => d.id.qualified)
    .sort()
}

/**
 * The IDs a command acts on: explicit IDs, a group, or --all (`allIds`). None at all is a usage
 * error; `noneHint` says what to give (enable and disable take IDs only).
 */
export const selectIds = (
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
  input: {
    readonly ids: ReadonlyArray<string>
    readonly all: boolean
    readonly group: Option.Option<string>
  },
  allIds: () => ReadonlyArray<string>,
  noneHint = "No daemon ID specified: name one or more daemons, or use --all or --group",
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
    if (out.length === 0)
      return yield* Option.isSome(input.group)
        ? new UnknownDaemon({ message: `group ${input.group.value} has no daemons` })
        : new UsageError({ message: noneHint })
    return [...new Set(out)]
  })
