import * as nodePath from "node:path"
import { Data, Effect, Either, Option, Schema } from "effect"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { type LoadOptions, loadConfig } from "../config/Loader.js"
import { currentNamespace, resolveId, selectIds } from "../control/selection.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonStatusOutput, LogLines, StartOutcomes, StopResults } from "../domain/CliOutput.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import { isActive } from "../domain/DaemonStatus.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { Settings } from "../domain/Settings.js"
import { showsOnStderr } from "../domain/stderrLevel.js"
import { parseTimeArg } from "../domain/timeArg.js"
import { type ApiClient, type Connect, McpSupervisor } from "./connection.js"

/**
 * What each MCP tool asks of the supervisor, through the typed client of its API: the same
 * configuration as the CLI in the server's directory, the same ID resolution, and the API's
 * answers. Failures are `ToolFailure`s whose message is the tool's error text.
 */

/** A tool call that failed: `message` is what the agent reads (`error: daemon web not found ...`). */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{ readonly message: string }> {}

/**
 * An answer with the problems met on the way (a configuration that does not load, for a tool
 * that goes on without it, as the CLI does): such an answer is an error result carrying its value.
 */
export interface Answer<A> {
  readonly value: A
  readonly problems: ReadonlyArray<string>
}

const emptyConfig = (cwd: string): ResolvedConfig => ({
  cwd,
  files: [],
  daemons: {},
  groups: {},
  slugs: {},
  settings: Schema.decodeSync(Settings)({}),
  warnings: [],
})

/** A warning goes where the CLI's would: stderr, which MCP clients keep in their logs. */
const warn = (text: string) =>
  Effect.sync(() => {
    if (showsOnStderr("warn")) process.stderr.write(`warning: ${text}\n`)
  })

/**
 * The configuration seen from the server's directory. `strict` (a start needs it): its problems
 * fail the call; otherwise the call goes on without it and they are reported with the answer.
 */
const loadHere = (here: LoadOptions, strict: boolean) =>
  loadConfig(here).pipe(
    Effect.tap((c) => Effect.forEach(c.warnings, warn, { discard: true })),
    Effect.map((config) => ({ config, problems: [] as ReadonlyArray<string> })),
    Effect.catchTag("ConfigInvalid", (e) => {
      const problems = e.problems.map((p) => `error: ${formatProblem(p)}`)
      return strict
        ? Effect.fail(new ToolFailure({ message: problems.join("\n") }))
        : Effect.succeed({ config: emptyConfig(nodePath.resolve(here.cwd)), problems })
    }),
  )

/** The namespace of the project the server was started in (its directory's name when unreadable). */
export const projectNamespace = (here: LoadOptions) =>
  loadConfig(here).pipe(
    Effect.map(currentNamespace),
    Effect.orElseSucceed(() => nodePath.basename(nodePath.resolve(here.cwd))),
  )

/** Any failure as the tool's error text: the API's message (`error: no daemon "x" ...`). */
const asToolFailure = (e: unknown): ToolFailure => {
  if (e instanceof ToolFailure) return e
  const message =
    typeof e === "object" && e !== null && "message" in e && typeof e.message === "string" && e.message !== ""
      ? e.message
      : typeof e === "object" && e !== null && "_tag" in e
        ? String(e._tag)
        : String(e)
  return new ToolFailure({ message: `error: ${message}` })
}

/**
 * The operations of the tools, each over a connection made for the call by `connect`, with the
 * configuration seen from `here` (the server's directory and environment).
 */
export const operations = (connect: Connect, here: LoadOptions) => {
  /** Runs `f` with the configuration seen from here and a client of the supervisor's API. */
  const withApi = <A, E, R>(
    strict: boolean,
    f: (config: ResolvedConfig, api: ApiClient) => Effect.Effect<A, E, R>,
  ) =>
    Effect.gen(function* () {
      const loaded = yield* loadHere(here, strict)
      const autoStart = loaded.config.settings.supervisor.auto_start ? true : ("setting-off" as const)
      const value = yield* Effect.flatMap(McpSupervisor, (s) => f(loaded.config, s.api)).pipe(
        Effect.provide(connect(autoStart)),
      )
      return { value, problems: loaded.problems } satisfies Answer<A>
    }).pipe(Effect.mapError(asToolFailure))

  /** Definitions for IDs: fresh from the configuration, else what the supervisor last ran. */
  const definitionsFor = (api: ApiClient, config: ResolvedConfig, ids: ReadonlyArray<string>) => {
    const fromConfig = configDefinitions(config)
    return Effect.forEach(ids, (id) => {
      const def = fromConfig.get(id)
      return def !== undefined
        ? Effect.succeed(def)
        : api.cli
            .definition({ payload: { id } })
            .pipe(
              Effect.mapError(
                () =>
                  new ToolFailure({ message: `error: no definition for ${id}: it is not configured here` }),
              ),
            )
    })
  }

  /** Starts the selected daemons with their dependencies, as `supervisor start` does. */
  const startSelected = (
    api: ApiClient,
    config: ResolvedConfig,
    selected: ReadonlyArray<string>,
    force: boolean,
  ): Effect.Effect<typeof StartOutcomes.Type, unknown> =>
    selected.length === 0
      ? Effect.succeed([])
      : Effect.gen(function* () {
          const definitions = yield* definitionsFor(api, config, selected)
          const dependencies = dependencyClosure(definitions, configDefinitions(config))
          return yield* api.cli.start({ payload: { definitions, dependencies, force } })
        })

  return {
    /** `GET /api/daemons`: every daemon the supervisor knows, or those of `namespace`. */
    list: (namespace: string | undefined) =>
      withApi(false, (_config, api) =>
        Effect.map(api.daemons.list(), (all) =>
          namespace === undefined ? all : all.filter((d) => d.id.namespace === namespace),
        ),
      ),

    /** One daemon's entry, its ID resolved as the CLI resolves it here. */
    status: (typed: string) =>
      withApi(false, (config, api) =>
        Effect.gen(function* () {
          const known = yield* api.daemons.list()
          const id = yield* resolveId(typed, config, known)
          const e: ApiDaemonEntry =
            known.find((x) => x.id.qualified === id) ?? (yield* api.daemons.get({ path: { id } }))
          return { ...e, status_text: e.status.type } satisfies typeof DaemonStatusOutput.Type
        }),
      ),

    /** Starts daemons with the dependencies they need and waits until they are ready. */
    start: (ids: ReadonlyArray<string>, force: boolean) =>
      withApi(true, (config, api) =>
        Effect.gen(function* () {
          const known = yield* api.daemons.list()
          const selected = yield* selectIds(config, known, { ids, all: false, group: Option.none() }, () =>
            Object.keys(config.daemons),
          )
          return yield* startSelected(api, config, selected, force)
        }),
      ),

    /** Restarts daemons and waits until they are ready. */
    restart: (ids: ReadonlyArray<string>) =>
      withApi(true, (config, api) =>
        Effect.gen(function* () {
          const known = yield* api.daemons.list()
          const running = () => known.filter(isActive).map((k) => k.id.qualified)
          const selected = yield* selectIds(config, known, { ids, all: false, group: Option.none() }, running)
          return yield* startSelected(api, config, selected, true)
        }),
      ),

    /** Stops daemons, dependents first. */
    stop: (ids: ReadonlyArray<string>) =>
      withApi(false, (config, api) =>
        Effect.gen(function* () {
          const known = yield* api.daemons.list()
          const running = () => known.filter(isActive).map((k) => k.id.qualified)
          const selected = yield* selectIds(config, known, { ids, all: false, group: Option.none() }, running)
          // configured here but never run: the supervisor does not know them, so none runs
          const unknown = selected.filter((id) => !known.some((k) => k.id.qualified === id))
          const present = selected.filter((id) => !unknown.includes(id))
          const stopped = present.length === 0 ? [] : yield* api.cli.stop({ payload: { ids: present } })
          return [
            ...unknown.map((id) => ({ id, was_running: false, killed: false })),
            ...stopped,
          ] satisfies typeof StopResults.Type
        }),
      ),

    /** The last `lines` entries of daemons' logs (every daemon's without IDs), filtered. */
    logs: (query: {
      readonly ids: ReadonlyArray<string>
      readonly lines: number
      readonly since?: string | undefined
      readonly grep?: ReadonlyArray<string> | undefined
    }) =>
      withApi(false, (config, api) =>
        Effect.gen(function* () {
          const since = query.since === undefined ? undefined : parseTimeArg(query.since)
          if (since !== undefined && Either.isLeft(since))
            return yield* new ToolFailure({ message: `error: ${since.left}` })
          const known = yield* api.daemons.list()
          const ids =
            query.ids.length > 0
              ? yield* Effect.forEach(query.ids, (id) => resolveId(id, config, known))
              : known.map((k) => k.id.qualified)
          const grep = query.grep === undefined || query.grep.length === 0 ? undefined : query.grep
          return yield* api.cli.logs({
            payload: {
              ids,
              lines: query.lines,
              ...(since !== undefined && { since: since.right }),
              ...(grep !== undefined && { grep }),
            },
          })
        }).pipe(Effect.map((lines): typeof LogLines.Type => lines)),
      ),
  }
}

export type Operations = ReturnType<typeof operations>
