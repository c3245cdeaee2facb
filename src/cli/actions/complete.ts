import { Console, Effect, Option } from "effect"
import { defaultLoadOptions, loadConfig } from "../../config/Loader.js"
import { currentNamespace } from "../../control/selection.js"
import { settingGroups } from "../../domain/Settings.js"
import { getJson } from "../../quick/request.js"
import type { CompleteKind } from "../args/complete.js"

/** How long the completion waits for a running supervisor's list of daemons. */
const SUPERVISOR_TIMEOUT_MS = 500

/** Every setting key, as a file writes it: `settings.web.port`. */
export const settingKeys = (): ReadonlyArray<string> =>
  Object.entries(settingGroups).flatMap(([group, schema]) =>
    Object.keys(schema.fields).map((key) => `settings.${group}.${key}`),
  )

/** The IDs of the daemons a running supervisor knows; none when no supervisor answers (none is started). */
const knownIds = (): Promise<ReadonlyArray<string>> =>
  getJson("/api/daemons", SUPERVISOR_TIMEOUT_MS).then((answer) =>
    Array.isArray(answer)
      ? answer.flatMap((e: { readonly id?: { readonly qualified?: unknown } }) =>
          typeof e?.id?.qualified === "string" ? [e.id.qualified] : [],
        )
      : [],
  )

/** The configuration seen from here, or none: a completion prints no problems. */
const quietConfig = loadConfig(defaultLoadOptions()).pipe(Effect.option)

/**
 * The daemons' words: the short names of the current namespace's daemons (what one types here),
 * then every qualified ID of the configuration and of the running supervisor.
 */
const daemonWords = Effect.gen(function* () {
  const config = yield* quietConfig
  const known = yield* Effect.promise(knownIds)
  const configured = Option.match(config, { onNone: () => [], onSome: (c) => Object.keys(c.daemons) })
  const ids = [...new Set([...configured, ...known])].sort()
  const namespace = Option.map(config, currentNamespace)
  const here = Option.match(namespace, {
    onNone: () => [],
    onSome: (ns) => ids.filter((q) => q.startsWith(`${ns}/`)).map((q) => q.slice(ns.length + 1)),
  })
  return [...new Set([...here, ...ids])]
})

const groupWords = quietConfig.pipe(
  Effect.map(Option.match({ onNone: () => [], onSome: (c) => Object.keys(c.groups).sort() })),
)

/** `supervisor complete KIND`: the words, one a line. */
export const complete = (kind: CompleteKind) => {
  const words: Effect.Effect<
    ReadonlyArray<string>,
    never,
    Effect.Effect.Context<typeof quietConfig>
  > = kind === "daemons" ? daemonWords : kind === "groups" ? groupWords : Effect.sync(settingKeys)
  return Effect.flatMap(words, (w) => (w.length === 0 ? Effect.void : Console.log(w.join("\n"))))
}
