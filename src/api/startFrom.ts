// `POST /api/cli/start-from`: `supervisor start` done by the supervisor for the quick client
// (src/quick/start.ts), which then needs neither the CLI bundle nor a configuration load of its
// own. The selection, definitions, dependencies and progress are the CLI's own functions
// (src/cli/resolve.ts, waiting.ts; actions/daemons.ts does the same in the CLI). Whatever the
// full CLI would print other than progress and outcomes (warnings, errors) is left to it: the
// answer is then `fallback`, given before any daemon is started.
import { Effect, Either, Option, Schema, Stream } from "effect"
import { selectIds } from "../cli/resolve.js"
import { waitingList } from "../cli/waiting.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import type { LoadOptions } from "../config/Loader.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { StartFromEvent } from "../domain/StartEvent.js"
import type { Supervisor } from "../supervisor/Supervisor.js"
import { startWithDependencies } from "../supervisor/startOrder.js"
import { StartFromRequest } from "./Api.js"
import { ndjsonLines, ndjsonResponse } from "./ndjson.js"
import { problem } from "./problem.js"
import { startEvents } from "./startEvents.js"

export interface StartFromDeps {
  readonly sup: Supervisor["Type"]
  readonly version: string
  /** The configuration seen from a directory (cached), any failure meaning "let the CLI say". */
  readonly loadConfig: (options: LoadOptions) => Effect.Effect<ResolvedConfig, unknown>
  /** Every daemon `GET /api/daemons` lists (memory and CPU need not be filled in). */
  readonly known: Effect.Effect<ReadonlyArray<ApiDaemonEntry>>
}

const decode = Schema.decodeUnknown(StartFromRequest)
/** One line of the answer, encoded through the StartFromEvent schema (src/domain/StartEvent.ts). */
const line = ndjsonLines(StartFromEvent)
const fallback = ndjsonResponse(Stream.make(line({ fallback: true })))

/** What to start, or undefined when the CLI has to do it (and say what is wrong). */
const plan = (deps: StartFromDeps, request: typeof StartFromRequest.Type) =>
  Effect.gen(function* () {
    if (request.version !== deps.version) return undefined
    const loaded = yield* Effect.either(deps.loadConfig({ cwd: request.cwd, env: request.env }))
    if (Either.isLeft(loaded) || loaded.right.warnings.length > 0) return undefined
    const config = loaded.right
    const known = yield* deps.known
    const selected = yield* Effect.either(
      selectIds(config, known, { ...request, group: Option.fromNullable(request.group) }, () =>
        Object.keys(config.daemons),
      ),
    )
    if (Either.isLeft(selected)) return undefined
    const fromConfig = configDefinitions(config)
    const defs: Array<DaemonDefinition> = []
    for (const id of selected.right) {
      const def = fromConfig.get(id) ?? Option.getOrUndefined(yield* Effect.option(deps.sup.get(id)))?.def
      if (def === undefined) return undefined
      defs.push(def)
    }
    const dependencies = dependencyClosure(defs, fromConfig)
    // a spinner starts from this list; a transcript hears it daemon by daemon
    const waiting =
      request.progress === "spinner"
        ? waitingList(defs, dependencies, request.force, config, known, yield* deps.sup.disabledIds)
        : []
    return { defs, dependencies, waiting }
  })

/** The raw handler: decodes the request, then answers `fallback` or streams the start. */
export const startFrom = (deps: StartFromDeps) => (body: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const request = yield* body.pipe(Effect.flatMap(decode), Effect.either)
    if (Either.isLeft(request)) return problem(400, "BadRequest", "malformed start-from request")
    const planned = yield* plan(deps, request.right)
    if (planned === undefined) return fallback
    const { defs, dependencies, waiting } = planned
    const force = request.right.force
    // Progress (a transcript or a spinner) hears what each daemon waits for and its outcome as
    // they come; otherwise only the last line counts.
    const started =
      request.right.progress !== "none"
        ? startEvents(deps.sup, defs, dependencies, force)
        : Stream.fromEffect(
            startWithDependencies(deps.sup.start, defs, dependencies, force, {
              isRunning: deps.sup.isRunning,
              sync: deps.sup.sync,
            }).pipe(Effect.map((outcomes) => line({ outcomes }))),
          )
    // The first line at once: the start is under way (and, for a spinner, what it waits for).
    return ndjsonResponse(Stream.concat(Stream.succeed(line({ waiting })), started))
  })
