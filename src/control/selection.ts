import * as nodePath from "node:path"
import { Data, Effect, Either, Option } from "effect"
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
        message: `no daemon ${id.qualified} in the configuration or the supervisor`,
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
    const names = [...all].sort()
    return yield* new UnknownDaemon({
      message: `no daemon named ${input}${names.length ? `; known daemons: ${names.join(", ")}` : " (no daemons configured here)"}`,
    })
  })

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
  noneHint = "name at least one daemon, or use --all or --group",
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
