import * as nodePath from "node:path"
import type { HttpClient } from "@effect/platform"
import { Data, Effect, Either, Option, Schema } from "effect"
import { type LoadOptions, loadConfig } from "../config/Loader.js"
import { currentNamespace, resolveId } from "../control/selection.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import {
  type DaemonStatusOutput,
  InputResult,
  LogLines,
  ScaleResult,
  StartOutcomes,
  StopResults,
} from "../domain/CliOutput.js"
import {
  Input,
  Logs as LogsCommand,
  Restart,
  Scale,
  type Selection,
  Start,
  Stop as StopCommand,
} from "../domain/Command.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { Settings } from "../domain/Settings.js"
import { maskResolvedConfig } from "../domain/secrets.js"
import { showsOnStderr } from "../domain/stderrLevel.js"
import { parseTimeArg } from "../domain/timeArg.js"
import { type ApiClient, type Connect, McpSupervisor } from "./connection.js"
import { decide, eventItems, openEvents, type WaitReadyOutput } from "./waitReady.js"

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
    f: (config: ResolvedConfig, api: ApiClient, http: HttpClient.HttpClient) => Effect.Effect<A, E, R>,
  ) =>
    Effect.gen(function* () {
      const loaded = yield* loadHere(here, strict)
      const autoStart = loaded.config.settings.supervisor.auto_start ? true : ("setting-off" as const)
      const value = yield* Effect.flatMap(McpSupervisor, (s) => f(loaded.config, s.api, s.http)).pipe(
        Effect.provide(connect(autoStart)),
      )
      return { value, problems: loaded.problems } satisfies Answer<A>
    }).pipe(Effect.mapError(asToolFailure))

  /**
   * The selection of a command: the IDs as typed, read from the server's directory with its
   * environment, as the CLI's commands send them; the supervisor resolves them (Control).
   */
  const selection = (ids: ReadonlyArray<string>): Selection => ({
    ids,
    all: false,
    from: {
      _tag: "Directory",
      cwd: nodePath.resolve(here.cwd),
      env: Object.fromEntries(
        Object.entries(here.env).filter((e): e is [string, string] => typeof e[1] === "string"),
      ),
      strict: false,
    },
  })

  /** A command's answer (`POST /api/commands`), checked to have the shape the command promises. */
  const answered = <A, B, E, R>(tag: string, sent: Effect.Effect<B, E, R>, is: (u: unknown) => u is A) =>
    Effect.flatMap(sent, (answer) =>
      is(answer)
        ? Effect.succeed(answer)
        : Effect.fail(
            new ToolFailure({ message: `error: the supervisor answered ${tag} with another shape` }),
          ),
    )
  const isOutcomes = Schema.is(StartOutcomes)
  const isStopResults = Schema.is(StopResults)
  const isScaleResult = Schema.is(ScaleResult)
  const isInputResult = Schema.is(InputResult)
  const isLogLines = Schema.is(LogLines)

  return {
    /** The configuration seen from here, as `config show --json` prints it: secrets masked. */
    config: loadHere(here, true).pipe(
      Effect.map(
        ({ config }): Answer<ResolvedConfig> => ({ value: maskResolvedConfig(config), problems: [] }),
      ),
      Effect.mapError(asToolFailure),
    ),

    /** `GET /api/daemons`: every daemon the supervisor knows, or those of `namespace`. */
    list: (namespace: string | undefined) =>
      withApi(false, (_config, api) =>
        Effect.map(api.daemons.list({ urlParams: {} }), (all) =>
          namespace === undefined ? all : all.filter((d) => d.id.namespace === namespace),
        ),
      ),

    /** One daemon's entry, its ID resolved as the CLI resolves it here. */
    status: (typed: string) =>
      withApi(false, (config, api) =>
        Effect.gen(function* () {
          const known = yield* api.daemons.list({ urlParams: {} })
          const id = yield* resolveId(typed, config, known)
          const e: ApiDaemonEntry =
            known.find((x) => x.id.qualified === id) ?? (yield* api.daemons.get({ path: { id } }))
          return { ...e, status_text: e.status.type } satisfies typeof DaemonStatusOutput.Type
        }),
      ),

    /** Starts daemons with the dependencies they need and waits until they are ready. */
    start: (ids: ReadonlyArray<string>, force: boolean) =>
      withApi(true, (_config, api) =>
        answered(
          "Start",
          api.commands.handle({
            payload: new Start({ selection: selection(ids), force, reason: "mcp", wait: "ready" }),
          }),
          isOutcomes,
        ),
      ),

    /** Restarts daemons and waits until they are ready. */
    restart: (ids: ReadonlyArray<string>) =>
      withApi(true, (_config, api) =>
        answered(
          "Restart",
          api.commands.handle({
            payload: new Restart({
              selection: selection(ids),
              reason: "mcp",
              wait: "ready",
              if_running: false,
            }),
          }),
          isOutcomes,
        ),
      ),

    /** Sets how many instances of a daemon with `instances` run (docs/replicas.md). */
    scale: (id: string, count: number) =>
      withApi(false, (_config, api) =>
        answered(
          "Scale",
          api.commands.handle({
            payload: new Scale({ id, count, from: selection([id]).from, reason: "mcp" }),
          }),
          isScaleResult,
        ),
      ),

    /** Types text and keys into a running daemon (docs/attach.md). */
    send: (input: {
      readonly id: string
      readonly text?: string | undefined
      readonly keys?: ReadonlyArray<string> | undefined
      readonly enter?: boolean | undefined
    }) =>
      withApi(false, (_config, api) =>
        answered(
          "Input",
          api.commands.handle({
            payload: new Input({
              id: input.id,
              ...(input.text === undefined ? {} : { text: input.text }),
              ...(input.keys === undefined ? {} : { keys: input.keys }),
              enter: input.enter ?? false,
              from: selection([input.id]).from,
              reason: "mcp",
            }),
          }),
          isInputResult,
        ),
      ),

    /** Stops daemons, dependents first. */
    stop: (ids: ReadonlyArray<string>) =>
      withApi(false, (_config, api) =>
        answered(
          "Stop",
          api.commands.handle({ payload: new StopCommand({ selection: selection(ids), reason: "mcp" }) }),
          isStopResults,
        ),
      ),

    /** The last `lines` entries of daemons' logs (every daemon's without IDs), filtered. */
    logs: (query: {
      readonly ids: ReadonlyArray<string>
      readonly lines: number
      readonly since?: string | undefined
      readonly grep?: ReadonlyArray<string> | undefined
    }) =>
      withApi(false, (_config, api) =>
        Effect.gen(function* () {
          const since = query.since === undefined ? undefined : parseTimeArg(query.since)
          if (since !== undefined && Either.isLeft(since))
            return yield* new ToolFailure({ message: `error: ${since.left}` })
          const grep = query.grep === undefined || query.grep.length === 0 ? undefined : query.grep
          // the Logs command: the supervisor selects the daemons as typed in the server's directory
          const command = new LogsCommand({
            selection: query.ids.length > 0 ? selection(query.ids) : { ids: [], all: true },
            lines: query.lines,
            ...(since !== undefined && { since: since.right }),
            ...(grep !== undefined && { grep }),
            stream: false,
            reason: "mcp",
          })
          return yield* answered("Logs", api.commands.handle({ payload: command }), isLogLines)
        }).pipe(Effect.map((lines): typeof LogLines.Type => lines)),
      ),

    /**
     * Waits until daemon `typed`'s next run is ready (a run that began after `since`, a time, if
     * given), for at most `timeout` seconds; why not, with its failing output or last lines.
     */
    waitReady: (typed: string, options: { readonly since?: string | undefined; readonly timeout: number }) =>
      withApi(false, (config, api, http) =>
        Effect.gen(function* () {
          const after = options.since === undefined ? undefined : parseTimeArg(options.since)
          if (after !== undefined && Either.isLeft(after))
            return yield* new ToolFailure({ message: `error: ${after.left}` })
          const id = yield* resolveId(typed, config, yield* api.daemons.list({ urlParams: {} }))
          // subscribed first (the retained events too, with a point to look from), then the state
          const response = yield* openEvents(http, { ids: [id], since: after === undefined ? undefined : 0 })
          const now = yield* api.daemons.get({ path: { id } })
          const lastLines = api.cli
            .logs({ payload: { ids: [id], lines: 20 } })
            .pipe(Effect.map((lines) => lines.map((l) => l.message)))
          const decided = yield* decide(id, eventItems(response), {
            begun: after === undefined && now.status.type === "waiting",
            after: after?.right,
          }).pipe(
            Effect.timeoutTo({
              duration: `${options.timeout} seconds`,
              onTimeout: () => undefined,
              onSuccess: (d) => d,
            }),
          )
          if (decided === undefined) {
            const later = yield* api.daemons.get({ path: { id } })
            return {
              id,
              outcome: "timed_out" as const,
              pid: null,
              seq: null,
              status: later.status.type,
              message: `not ready within ${options.timeout}s (it is ${later.status.type})`,
              output: yield* lastLines,
            } satisfies WaitReadyOutput
          }
          if (Option.isNone(decided))
            return yield* new ToolFailure({
              message: `error: the supervisor ended the event stream before ${id} was ready`,
            })
          const d = decided.value
          return {
            ...d,
            output: d.outcome === "ready" ? [] : (d.output ?? (yield* lastLines)),
          } satisfies WaitReadyOutput
        }),
      ),
  }
}

export type Operations = ReturnType<typeof operations>
