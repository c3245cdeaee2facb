// The spec's routes (`/api/...`): daemons and their control, the log tail, namespaces, proxies,
// process trees and system statistics. The CLI's own operations are in cliHandlers.ts.
import * as os from "node:os"
import { FileSystem, HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import type { ControlResult } from "../domain/ApiDaemonEntry.js"
import { type BadDaemonId, qualifiedId } from "../domain/DaemonId.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { LogStore } from "../logs/LogStore.js"
import { listPids } from "../process/procfs.js"
import { StateStore } from "../state/StateStore.js"
import { daemonUsage } from "../supervisor/resourceUsage.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { SupervisorConfig } from "../supervisor/SupervisorConfig.js"
import { startWithDependencies } from "../supervisor/startOrder.js"
import { Api } from "./Api.js"
import { makeConfigured } from "./configured.js"
import { HostInfo } from "./HostInfo.js"
import { listNamespaces, registerNamespace, removeNamespace } from "./namespaces.js"
import { problem } from "./problem.js"
import { errorText, knownEntries, ndjsonStream } from "./respond.js"
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

/** The qualified ID of a daemon route's path, or a BadDaemonId (400). */
const pathId = (path: { readonly id: string }): Effect.Effect<string, BadDaemonId> => qualifiedId(path.id)

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
    // A control route: a malformed ID is a 400; any failure of the action itself is `ok: false`.
    const control =
      (f: (id: string) => Effect.Effect<ControlResult, unknown>) =>
      ({ path }: { readonly path: { readonly id: string } }) =>
        Effect.flatMap(pathId(path), (id) =>
          f(id).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, error: errorText(e) }))),
        )
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
          isRunning: sup.isRunning,
          sync: sup.sync,
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
        Effect.flatMap(pathId(path), entry).pipe(
          // never ran, but configured in a registered namespace: its listing entry
          Effect.catchTag("DaemonNotFound", (notFound) =>
            Effect.gen(function* () {
              const listed = yield* configured.listing([], yield* sup.disabledIds)
              const found = listed.find((e) => e.id.qualified === notFound.id)
              return found ?? (yield* Effect.fail(notFound))
            }),
          ),
        ),
      )
      .handle(
        "start",
        control((id) => start(id, false)),
      )
      .handle(
        "stop",
        control((id) => sup.stop(id).pipe(Effect.as({ ok: true }))),
      )
      .handle(
        "restart",
        control((id) => start(id, true)),
      )
      .handle(
        "enable",
        control((id) => knownOrConfigured(id).pipe(Effect.zipRight(sup.enable(id)), Effect.as({ ok: true }))),
      )
      .handle(
        "disable",
        control((id) =>
          knownOrConfigured(id).pipe(Effect.zipRight(sup.disable(id)), Effect.as({ ok: true })),
        ),
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
      .handle("tree", ({ path }) => Effect.flatMap(pathId(path), sup.tree))
      .handleRaw("tail", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const id = yield* pathId(path)
          yield* sup.get(id)
          const since = urlParams.since === undefined ? undefined : parseSince(urlParams.since)
          if (since !== undefined && Either.isLeft(since)) return problem(400, "BadRequest", since.left)
          const stream = filteredTail(logs, id, {
            lines: urlParams.lines ?? 10,
            since: since === undefined ? undefined : since.right,
            grep: urlParams.grep,
          })
          return ndjsonStream(stream, host)
        }),
      )
  }),
)
