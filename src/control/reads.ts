// The read commands (src/domain/Command.ts): a logs query, a tail, the settings and the
// namespaces. Their selection goes through `selectFor` like every other command's; a streamed
// answer (a tail, `Logs` with `stream`) is handed to the caller's sink a chunk at a time.
import { Effect, Stream, SubscriptionRef } from "effect"
import { settingEntries } from "../config/settingsEntries.js"
import type { LogStreamCommand, Logs, Namespaces, ReadSettings, Tail } from "../domain/Command.js"
import { ConfigUnusable, UsageError } from "../domain/CommandErrors.js"
import type { LogStreamItem } from "../domain/LogEntry.js"
import type { LogFilters } from "../domain/LogFilters.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import { GLOBAL_DIR } from "../registry/snapshot.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { type LogsPayload, queryLogs, queryProblem, storedChunks, tailLogs } from "./logQueries.js"
import { listNamespaces } from "./namespaces.js"
import { loadFrom, type SelectDeps, selectFor } from "./selectFor.js"

/** What a streamed log answer hears: `Opened` once the selection is made, then the lines. */
export type LogEvent =
  | { readonly _tag: "Opened"; readonly ids: ReadonlyArray<string> }
  | { readonly _tag: "Items"; readonly items: ReadonlyArray<LogStreamItem> }
export type LogSink = (event: LogEvent) => Effect.Effect<void>

export interface ReadDeps extends SelectDeps {
  readonly logs: LogStoreShape
  /** The environment the supervisor's own settings are read with. */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly ran: Effect.Effect<ReadonlyArray<DaemonState>>
}

const filtersOf = (c: LogStreamCommand): LogFilters => {
  const { selection: _s, reason: _r, _tag, ...rest } = c
  const { stream: _stream, ...filters } = rest as LogFilters & { readonly stream?: boolean }
  return filters
}

export const makeReads = (deps: ReadDeps) => {
  /** The selection's IDs with the command's filters; a filter that cannot be used is a UsageError. */
  const queryOf = (c: LogStreamCommand) =>
    Effect.gen(function* () {
      const selected = yield* selectFor(
        deps,
        c.selection,
        "configured",
        "No daemon ID specified: name the daemons whose logs to read, or use all",
      )
      const query: LogsPayload = { ids: selected.ids, ...filtersOf(c) }
      if (query.regex !== undefined) {
        try {
          new RegExp(query.regex)
        } catch (e) {
          return yield* new UsageError({ message: `invalid regex: ${(e as Error).message}` })
        }
      }
      const bad = queryProblem(query)
      if (bad !== undefined) return yield* new UsageError({ message: bad })
      return query
    })

  const logs = (c: Logs, sink: LogSink | undefined) =>
    Effect.gen(function* () {
      const query = yield* queryOf(c)
      if (!c.stream || sink === undefined) return yield* queryLogs(deps.logs, query)
      const chunks = yield* storedChunks(deps.logs, query)
      yield* sink({ _tag: "Opened", ids: query.ids })
      yield* Stream.runForEach(chunks, (items) => sink({ _tag: "Items", items }))
      return []
    })

  const tail = (c: Tail, sink: LogSink | undefined) =>
    Effect.gen(function* () {
      if (c.until !== undefined)
        return yield* new UsageError({ message: "until cannot be followed: new lines are always later" })
      const query = yield* queryOf(c)
      if (sink !== undefined) yield* sink({ _tag: "Opened", ids: query.ids })
      yield* tailLogs(deps.logs, query).pipe(
        Stream.catchAll(() => Stream.empty),
        Stream.runForEachChunk((chunk) =>
          sink === undefined ? Effect.void : sink({ _tag: "Items", items: [...chunk] }),
        ),
      )
    })

  const settings = (c: ReadSettings) =>
    Effect.gen(function* () {
      if (c.from !== undefined) return settingEntries(yield* loadFrom(deps, c.from), c.from.env)
      const global = (yield* SubscriptionRef.get(deps.projects.snapshot)).projects.find(
        (p) => p.dir === GLOBAL_DIR,
      )
      if (global?.config === undefined)
        return yield* new ConfigUnusable({
          message: global?.problem ?? "the global configuration has not loaded yet",
          warnings_only: false,
        })
      return settingEntries(global.config, deps.env)
    })

  const namespaces = (_c: Namespaces) => Effect.flatMap(deps.ran, (all) => listNamespaces(deps.projects, all))

  return { logs, tail, settings, namespaces }
}
