import * as os from "node:os"
import { FileSystem, HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Chunk, Deferred, Effect, Either, Ref, Schema, Stream } from "effect"
import { makeConfigCache } from "../config/cache.js"
import type { LoadOptions } from "../config/Loader.js"
import type { ControlResult } from "../domain/ApiDaemonEntry.js"
import { type LogEntry, LogStreamItem } from "../domain/LogEntry.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { stripAnsi } from "../logs/ansi.js"
import { LogStore } from "../logs/LogStore.js"
import { listPids } from "../process/procfs.js"
import { StateStore } from "../state/StateStore.js"
import { stopLevels } from "../supervisor/order.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { SupervisorConfig } from "../supervisor/SupervisorConfig.js"
import { isRunningIn, startWithDependencies } from "../supervisor/startOrder.js"
import { daemonUsage } from "../supervisor/usage.js"
import { Api, LogsQuery, StartRequest, type SupervisorInfo } from "./Api.js"
import { makeConfigured } from "./configured.js"
import { HostInfo, type HostInfoShape } from "./HostInfo.js"
import { mergeListing } from "./listing.js"
import { followLogs, queryLogs } from "./logQueries.js"
import { listNamespaces, registerNamespace, removeNamespace } from "./namespaces.js"
import { problem } from "./problem.js"
import { ndjsonResponse, startEvents } from "./startEvents.js"
import { startFrom } from "./startFrom.js"
import { filteredTail, parseSince } from "./tailQuery.js"

const outcomeResult = (o: StartOutcome): ControlResult => {
  switch (o._tag) {
    case "Ready":
    case "AlreadyRunning":
    case "Completed":
      return { ok: true }
    case "Disabled":
      return { ok: false, error: `${o.id} is disabled; enable it first` }
    case "Interrupted":
      return { ok: false, error: `${o.id} was stopped while starting` }
    case "StartFailed":
      return { ok: false, error: o.message }
  }
}

const countProcesses = () => Effect.sync(() => listPids().length)

/** Every daemon the supervisor knows, as the API lists it (usage read from /proc in one pass). */
const knownEntries = (sup: Supervisor["Type"]) =>
  Effect.flatMap(sup.list, (all) => {
    const usage = daemonUsage(all)
    return Effect.forEach(all, (r) =>
      sup
        .isDisabled(r.def.id.qualified)
        .pipe(Effect.map((d) => sup.entry(r, d, usage.get(r.def.id.qualified)))),
    )
  })

/** A raw handler's JSON body, decoded with `schema`; Left when it is not that. */
const decodeBody = <A, I>(request: HttpServerRequest.HttpServerRequest, schema: Schema.Schema<A, I>) =>
  request.json.pipe(Effect.flatMap(Schema.decodeUnknown(schema)), Effect.either)

const encodeItem = Schema.encodeSync(Schema.parseJson(LogStreamItem))
const encoder = new TextEncoder()

/**
 * A log stream as an open-ended ndjson response: one entry or `{ _clear, _gen }` per line, until
 * the client leaves or the supervisor shuts down. An empty first chunk sends the headers at once,
 * also when no line comes for a while.
 */
const ndjsonStream = (items: Stream.Stream<LogStreamItem, unknown>, host: HostInfoShape) =>
  HttpServerResponse.stream(
    items.pipe(
      Stream.map((item) => encoder.encode(`${encodeItem(item)}\n`)),
      Stream.catchAll(() => Stream.empty),
      Stream.interruptWhenDeferred(host.shutdown),
      Stream.prepend(Chunk.of(new Uint8Array(0))),
    ),
    { contentType: "application/x-ndjson", headers: { connection: "close", "cache-control": "no-store" } },
  )

export const DaemonsLive = HttpApiBuilder.group(Api, "daemons", (h) =>
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const logs = yield* LogStore
    const host = yield* HostInfo
    const state = yield* StateStore
    const config = yield* SupervisorConfig
    const entry = (id: string) =>
      Effect.gen(function* () {
        const r = yield* sup.get(id)
        return sup.entry(r, yield* sup.isDisabled(id), daemonUsage([r]).get(id))
      })
    const control = (f: (id: string) => Effect.Effect<ControlResult, unknown>) => (id: string) =>
      f(id).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, error: errorText(e) })))
    const configured = makeConfigured(state, config.env, yield* FileSystem.FileSystem)
    // A daemon of a registered namespace starts from its current definition, dependencies
    // first; any other from the definition it last ran with.
    const start = (id: string, force: boolean) =>
      Effect.gen(function* () {
        const known = yield* Effect.option(sup.get(id))
        // A configuration that cannot be read does not block a daemon that ran before: it
        // starts from its last definition; an unknown one fails saying why.
        const fresh = yield* configured
          .forStart(id)
          .pipe(
            Effect.catchAll((why) => (known._tag === "Some" ? Effect.succeed(undefined) : Effect.fail(why))),
          )
        if (fresh === undefined) {
          const r = yield* sup.get(id)
          return yield* force ? sup.restart(id, r.def) : sup.start(r.def)
        }
        const outcomes = yield* startWithDependencies(sup.start, [fresh.def], fresh.dependencies, force, {
          isRunning: isRunningIn(sup.get),
        })
        return outcomes.find((o) => o.id === id) ?? outcomes[outcomes.length - 1]!
      }).pipe(Effect.map(outcomeResult))
    // A daemon the supervisor ran, or one of a registered namespace that never ran.
    const knownOrConfigured = (id: string) =>
      configured.has(id).pipe(Effect.flatMap((has) => (has ? Effect.void : Effect.asVoid(sup.get(id)))))
    return h
      .handle("list", () =>
        Effect.gen(function* () {
          return yield* configured.listing(yield* knownEntries(sup), yield* sup.disabledIds)
        }),
      )
      .handle("get", ({ path }) =>
        entry(path.id).pipe(
          // never ran, but configured in a registered namespace: its listing entry
          Effect.catchTag("DaemonNotFound", (notFound) =>
            Effect.gen(function* () {
              const listed = yield* configured.listing([], yield* sup.disabledIds)
              const found = listed.find((e) => e.id.qualified === path.id)
              return found ?? (yield* Effect.fail(notFound))
            }),
          ),
        ),
      )
      .handle("start", ({ path }) => control((id) => start(id, false))(path.id))
      .handle("stop", ({ path }) => control((id) => sup.stop(id).pipe(Effect.as({ ok: true })))(path.id))
      .handle("restart", ({ path }) => control((id) => start(id, true))(path.id))
      .handle("enable", ({ path }) =>
        control((id) => knownOrConfigured(id).pipe(Effect.zipRight(sup.enable(id)), Effect.as({ ok: true })))(
          path.id,
        ),
      )
      .handle("disable", ({ path }) =>
        control((id) =>
          knownOrConfigured(id).pipe(Effect.zipRight(sup.disable(id)), Effect.as({ ok: true })),
        )(path.id),
      )
      .handle("stats", () =>
        Effect.map(countProcesses(), (process_count) => ({
          process_count,
          cpu_count: os.cpus().length,
          total_memory: os.totalmem(),
        })),
      )
      .handle("namespaces", () => sup.list.pipe(Effect.flatMap((all) => listNamespaces(state, all))))
      .handle("registerNamespace", ({ payload }) => registerNamespace(state, payload.dir, config.env))
      .handle("removeNamespace", ({ path }) => removeNamespace(state, path.namespace))
      .handle("proxies", () =>
        Effect.succeed(
          Object.entries(config.slugs ?? {}).map(([slug, s]) => ({
            slug,
            daemon_id: s.daemon,
            dir: s.dir,
            proxy_url: null,
          })),
        ),
      )
      .handle("tree", ({ path }) => sup.tree(path.id))
      .handleRaw("tail", ({ path, urlParams }) =>
        Effect.gen(function* () {
          yield* sup.get(path.id)
          const since = urlParams.since === undefined ? undefined : parseSince(urlParams.since)
          if (since !== undefined && Either.isLeft(since)) return problem(400, "BadRequest", since.left)
          const stream = filteredTail(logs, path.id, {
            lines: urlParams.lines ?? 10,
            since: since === undefined ? undefined : since.right,
            grep: urlParams.grep,
          })
          return ndjsonStream(stream, host)
        }),
      )
  }),
)

const errorText = (e: unknown): string =>
  typeof e === "object" && e !== null && "message" in e
    ? String((e as { message: unknown }).message)
    : String(e)

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
          isRunning: isRunningIn(sup.get),
        }),
      )
      .handleRaw("startStream", ({ request }) =>
        Effect.gen(function* () {
          const decoded = yield* decodeBody(request, StartRequest)
          if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed start request")
          const { definitions, dependencies, force } = decoded.right
          return ndjsonResponse(
            startEvents(sup.start, sup.list, isRunningIn(sup.get), definitions, dependencies, force),
          )
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
          const ndjson = (entries: ReadonlyArray<LogEntry>) =>
            encoder.encode(entries.map((e) => `${JSON.stringify(e)}\n`).join(""))
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
                  ndjson(q.raw ? page.map((e) => ({ ...e, message: stripAnsi(e.message) })) : page),
                ),
                Stream.catchAll(() => Stream.empty),
              )
            : entries.length === 0
              ? Stream.empty
              : Stream.range(0, Math.ceil(entries.length / 2000) - 1).pipe(
                  Stream.map((i) => ndjson(entries.slice(i * 2000, (i + 1) * 2000))),
                )
          return HttpServerResponse.stream(chunks, {
            contentType: "application/x-ndjson",
            headers: { "cache-control": "no-store" },
          })
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
