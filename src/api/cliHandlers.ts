// The CLI's operations beyond the spec's routes (`/api/cli/...`): start, stop, wait, clean, logs,
// and the quick client's list and start.
import { FileSystem, HttpApiBuilder } from "@effect/platform"
import { Deferred, Effect, Either, Ref, Stream } from "effect"
import { makeConfigCache } from "../config/cache.js"
import type { LoadOptions } from "../config/Loader.js"
import type { SupervisorInfo } from "../domain/CliOutput.js"
import { LogEntry } from "../domain/LogEntry.js"
import { stripAnsi } from "../logs/ansi.js"
import { LogStore } from "../logs/LogStore.js"
import { StateStore } from "../state/StateStore.js"
import { stopLevels } from "../supervisor/order.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { SupervisorConfig } from "../supervisor/SupervisorConfig.js"
import { startWithDependencies } from "../supervisor/startOrder.js"
import { Api, LogsQuery, StartRequest } from "./Api.js"
import { makeConfigured } from "./configured.js"
import { HostInfo } from "./HostInfo.js"
import { mergeListing } from "./listing.js"
import { followLogs, queryLogs } from "./logQueries.js"
import { ndjsonChunk, ndjsonResponse } from "./ndjson.js"
import { problem } from "./problem.js"
import { decodeBody, errorText, knownEntries, ndjsonStream } from "./respond.js"
import { startEvents } from "./startEvents.js"
import { startFrom } from "./startFrom.js"

/** Log entries as ndjson lines, a chunk at a time, through the LogEntry schema. */
const logChunk = ndjsonChunk(LogEntry)

export const CliLive = HttpApiBuilder.group(Api, "cli", (h) =>
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const logs = yield* LogStore
    const host = yield* HostInfo
    const fs = yield* FileSystem.FileSystem
    const cachedConfig = makeConfigCache()
    const loadConfig = (options: LoadOptions) =>
      cachedConfig(options).pipe(Effect.provideService(FileSystem.FileSystem, fs))
    const configured = makeConfigured(yield* StateStore, (yield* SupervisorConfig).env, fs)
    // Every daemon as `GET /api/daemons` lists it, without reading /proc for memory and CPU.
    const known = Effect.gen(function* () {
      const disabled = yield* sup.disabledIds
      const entries = (yield* sup.list).map((r) => sup.entry(r, disabled.includes(r.def.id.qualified)))
      return yield* configured.listing(entries, disabled)
    })
    const startFromHandler = startFrom({ sup, version: host.version, loadConfig, known })
    return h
      .handle("start", ({ payload }) =>
        startWithDependencies(sup.start, payload.definitions, payload.dependencies, payload.force, {
          isRunning: sup.isRunning,
          sync: sup.sync,
        }),
      )
      .handleRaw("startStream", ({ request }) =>
        Effect.gen(function* () {
          const decoded = yield* decodeBody(request, StartRequest)
          if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed start request")
          const { definitions, dependencies, force } = decoded.right
          return ndjsonResponse(startEvents(sup, definitions, dependencies, force))
        }),
      )
      .handle("stop", ({ payload }) =>
        Effect.gen(function* () {
          // Dependents before their dependencies: level by level, each level in parallel.
          const depends = new Map<string, ReadonlyArray<string>>()
          for (const id of payload.ids) depends.set(id, (yield* sup.get(id)).def.config.depends)
          const results = new Map<string, { readonly was_running: boolean; readonly killed: boolean }>()
          const order: Array<string> = []
          for (const level of stopLevels(depends)) {
            order.push(...level)
            yield* Effect.forEach(
              level,
              (id) =>
                Effect.gen(function* () {
                  const was_running = yield* sup.stop(id)
                  const r = yield* sup.get(id)
                  // SIGKILL ended it (never a stop signal of its own): it outlived the stop timeout
                  const killed = was_running && r.status.signal === "SIGKILL"
                  results.set(id, { was_running, killed })
                }),
              { concurrency: "unbounded", discard: true },
            )
          }
          // in the order they were stopped: dependents first
          return order.map((id) => ({ id, ...(results.get(id) ?? { was_running: false, killed: false }) }))
        }),
      )
      .handle("wait", ({ payload }) =>
        sup.wait(payload.id).pipe(
          Effect.map((r) => ({
            id: payload.id,
            status: r.status.type,
            exit_code: r.status.exit_code ?? null,
            signal: r.status.signal ?? null,
          })),
        ),
      )
      .handle("clean", ({ payload }) => sup.clean(payload.ids).pipe(Effect.map((removed) => ({ removed }))))
      .handle("logs", ({ payload }) => queryLogs(logs, payload))
      .handleRaw("logsStream", ({ request }) =>
        Effect.gen(function* () {
          // A raw handler: the body is decoded here (the typed client posts the same LogsQuery).
          const decoded = yield* decodeBody(request, LogsQuery)
          if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed logs query")
          const q = decoded.right
          const [only] = q.ids
          // One daemon, no filter (`logs ID -n N`): read page by page, never all N at once. An
          // unknown daemon gives no lines, as in the other form.
          const paged =
            q.ids.length === 1 &&
            only !== undefined &&
            q.since === undefined &&
            q.until === undefined &&
            q.grep === undefined &&
            q.regex === undefined
          // Otherwise the selection is made before the response starts (a bad regex is a 500, not
          // a cut-off stream), then sent as plain JSON of plain records, 2000 lines per chunk.
          const entries = paged ? [] : yield* queryLogs(logs, q)
          const chunks = paged
            ? logs.pages(only, q.lines === undefined ? {} : { lines: q.lines }).pipe(
                Stream.map((page) =>
                  logChunk(q.raw ? page.map((e) => ({ ...e, message: stripAnsi(e.message) })) : page),
                ),
                Stream.catchAll(() => Stream.empty),
              )
            : entries.length === 0
              ? Stream.empty
              : Stream.range(0, Math.ceil(entries.length / 2000) - 1).pipe(
                  Stream.map((i) => logChunk(entries.slice(i * 2000, (i + 1) * 2000))),
                )
          return ndjsonResponse(chunks)
        }),
      )
      .handleRaw("logsFollow", ({ request }) =>
        Effect.gen(function* () {
          const decoded = yield* decodeBody(request, LogsQuery)
          if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed logs query")
          const q = decoded.right
          if (q.until !== undefined)
            return problem(400, "BadRequest", "until cannot be followed: new lines are always later")
          if (q.regex !== undefined) {
            try {
              new RegExp(q.regex)
            } catch (e) {
              return problem(400, "BadRequest", `invalid regex: ${errorText(e)}`)
            }
          }
          return ndjsonStream(followLogs(logs, q), host)
        }),
      )
      .handle("clearLogs", ({ payload }) =>
        Effect.forEach(payload.ids, (id) => logs.clear(id).pipe(Effect.ignore)).pipe(
          Effect.as({ cleared: [...payload.ids] }),
        ),
      )
      .handle("definition", ({ payload }) => sup.get(payload.id).pipe(Effect.map((r) => r.def)))
      .handle("toggle", ({ payload }) =>
        Effect.forEach(payload.definitions, (def) =>
          payload.enabled ? sup.enable(def.id.qualified) : sup.disable(def.id.qualified),
        ).pipe(Effect.as({ ok: true })),
      )
      .handle("disabled", () => sup.disabledIds.pipe(Effect.map((ids) => ({ ids: [...ids] }))))
      .handle("info", () =>
        Effect.gen(function* () {
          const all = yield* sup.list
          const urls = yield* Ref.get(host.listeners)
          const info: SupervisorInfo = {
            pid: process.pid,
            version: host.version,
            started_at: host.startedAt,
            uptime_secs: Math.floor((Date.now() - host.startedAt) / 1000),
            state_dir: host.stateDir,
            socket: host.socket,
            web_url: urls.web,
            api_url: urls.api,
            daemons: all.length,
          }
          return info
        }),
      )
      .handle("listFrom", ({ payload }) =>
        Effect.gen(function* () {
          // Warnings and problems are the CLI's to print: it lists by itself then.
          const config = yield* Effect.either(loadConfig(payload))
          if (Either.isLeft(config) || config.right.warnings.length > 0)
            return { version: host.version, entries: null }
          const entries = mergeListing(yield* knownEntries(sup), yield* sup.disabledIds, config.right)
          return { version: host.version, entries }
        }),
      )
      .handleRaw("startFrom", ({ request }) => startFromHandler(request.json))
      .handle("shutdown", ({ urlParams }) =>
        Deferred.succeed(host.shutdown, urlParams.keep_daemons === "true" ? "keep" : "stop").pipe(
          Effect.as({ ok: true }),
        ),
      )
      .handle("webLogin", () =>
        Ref.get(host.listeners).pipe(
          Effect.map(({ web }) => ({
            url: web === null ? null : `${web}/login?code=${host.sessions.newCode()}`,
          })),
        ),
      )
  }),
)
