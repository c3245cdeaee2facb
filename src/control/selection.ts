import * as nodePath from "node:path"
import { Data, Effect, Either, Option } from "effect"
import { closest } from "../config/suggest.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { parseDaemonRef } from "../domain/DaemonId.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

export class UnknownDaemon extends Data.TaggedError("UnknownDaemon")<{ readonly message: string }> {}
/** Bad command-line usage that @effect/cli let through (a flag swallowed by repeated IDs): exit 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** Repeated ID arguments swallow unknown flags (EFFECT-V3.md §7): reject them as usage errors. */
export const rejectFlags = (inputs: ReadonlyArray<string>): Effect.Effect<void, UsageError> => {
  const flag = inputs.find((i) => i.startsWith("-"))
  return flag === undefined ? Effect.void : Effect.fail(new UsageError({ message: `unknown option ${flag}` }))
}

/** The namespace that short IDs mean here: the nearest config file's, else the directory's name. */
export const currentNamespace = (config: ResolvedConfig): string =>
  config.namespace ?? nodePath.basename(config.cwd)

/**
 * Resolves what a user typed: a qualified ID works from anywhere; a short one
 * means the current namespace first, then the only daemon of that name in any
 * namespace. Ambiguity and unknown names are errors that list the candidates.
 */
export const resolveId = (
  input: string,
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
): Effect.Effect<string, UnknownDaemon | UsageError> =>
  Effect.gen(function* () {
    yield* rejectFlags([input])
    const all = new Set([...Object.keys(config.daemons), ...known.map((d) => d.id.qualified)])
    const parsed = parseDaemonRef(input, currentNamespace(config))
    if (Either.isLeft(parsed)) return yield* new UnknownDaemon({ message: parsed.left })
    const id = parsed.right
    if (input.includes("/")) {
      if (all.has(id.qualified)) return id.qualified
      return yield* new UnknownDaemon({
        message: notFound(id.qualified, input, all, currentNamespace(config)),
      })
    }
    if (all.has(id.qualified)) return id.qualified
    const candidates = [...all].filter((q) => q.endsWith(`/${input}`)).sort()
    if (candidates.length === 1) return candidates[0]!
    if (candidates.length > 1) {
      return yield* new UnknownDaemon({
        message: `${input} is ambiguous: ${candidates.join(", ")}; use the qualified ID`,
      })
    }
    return yield* new UnknownDaemon({ message: notFound(input, input, all, currentNamespace(config)) })
  })

/**
 * `daemon web not found`, as pitchfork says it, and the closest ID as a hint, else the daemons of
 * the current namespace (a few), else that none is configured here.
 */
const notFound = (shown: string, typed: string, all: ReadonlySet<string>, namespace: string): string => {
  const ids = [...all].sort()
  const here = ids.filter((q) => q.startsWith(`${namespace}/`))
  const names = ids.map((q) => q.slice(q.indexOf("/") + 1))
  const near = closest(typed, typed.includes("/") ? ids : [...new Set([...names, ...ids])])
  const hint =
    near !== undefined
      ? `; did you mean ${near}?`
      : here.length > 0
        ? `; configured here: ${here.slice(0, 5).join(", ")}${here.length > 5 ? ", …" : ""}`
        : ids.length === 0
          ? " (no daemons configured here)"
          : ""
  return `daemon ${shown} not found${hint}`
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
  const other =
    input.local && input.global
      ? "--global"
      : input.ids.length > 0
        ? "daemon IDs"
        : input.all
          ? "--all"
          : Option.isSome(input.group)
            ? "--group"
            : undefined
  return other === undefined
    ? Effect.succeed(Option.some(input.local ? "local" : "global"))
    : Effect.fail(new UsageError({ message: `${flag} cannot be combined with ${other}` }))
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
