// The CLI's operations beyond the spec's routes (`/api/cli/...`): start, stop, wait, clean, logs,
// and the quick client's list and start.
import { HttpApiBuilder } from "@effect/platform"
import { Cause, Deferred, Effect, Either, Ref, Stream, SubscriptionRef } from "effect"
import { Presence } from "../automation/presence/Presence.js"
import { Control } from "../control/Control.js"
import { queryProblem } from "../control/logQueries.js"
import type { SupervisorInfo } from "../domain/CliOutput.js"
import {
  Clean,
  Disable,
  Enable,
  type LogStreamCommand,
  Logs,
  Run,
  Stop,
  Tail,
  Wait,
} from "../domain/Command.js"
import type { CommandError } from "../domain/CommandErrors.js"
import { HostInfo } from "../domain/HostInfo.js"
import { maskDefinition, secretMatcher } from "../domain/secrets.js"
import { LogStore } from "../logs/LogStore.js"
import { ProjectRegistry } from "../registry/ProjectRegistry.js"
import { projectNamespace } from "../registry/snapshot.js"
import { StorageHealth } from "../state/StorageHealth.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { Api, LogsQuery, StartRequest } from "./Api.js"
import { logStreamed, startEventsResponse, startProgress } from "./commandHandlers.js"
import { logsText, logsTextFrom } from "./logsText.js"
import { ndjsonResponse } from "./ndjson.js"
import { problem } from "./problem.js"
import { quickAnswer } from "./quickAnswer.js"
import { decodeBody, errorText } from "./respond.js"

import { startFrom } from "./startFrom.js"

export const CliLive = HttpApiBuilder.group(Api, "cli", (h) =>
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const control = yield* Control
    const projects = yield* ProjectRegistry
    const logs = yield* LogStore
    const host = yield* HostInfo
    const health = yield* StorageHealth
    const presence = yield* Presence
    const startFromHandler = startFrom(control, host.version)
    // definitions the client resolved itself: the Run command
    const run = (request: typeof StartRequest.Type, wait: "ready" | "events") =>
      new Run({
        definitions: request.definitions,
        dependencies: request.dependencies,
        force: request.force,
        reason: "cli",
        wait,
      })
    // the failures these aliases declare (DaemonNotFound); any other cannot come of a qualified ID
    const notFoundOnly = <A>(e: Effect.Effect<A, CommandError>) =>
      Effect.catchAll(e, (err) => (err._tag === "DaemonNotFound" ? Effect.fail(err) : Effect.die(err)))
    const textDeps = { logs, version: host.version, control }
    const logsCommand = ({ ids, ...filters }: typeof LogsQuery.Type, stream: boolean) =>
      new Logs({ selection: { ids, all: false }, ...filters, stream, reason: "cli" })
    // a daemon the supervisor does not know has no lines: an empty answer, as these routes gave
    const logAlias = (command: LogStreamCommand) =>
      (command.selection.ids.length === 0
        ? Effect.succeed(ndjsonResponse(Stream.empty))
        : logStreamed(control, command, host)
      ).pipe(
        Effect.flatMap((response) =>
          response.status === 404 && command._tag === "Logs"
            ? Effect.succeed(ndjsonResponse(Stream.empty))
            : Effect.succeed(response),
        ),
      )
    return (
      h
        .handle("start", ({ payload }) => control.handle(run(payload, "ready")).pipe(Effect.orDie))
        .handleRaw("startStream", ({ request }) =>
          Effect.gen(function* () {
            const decoded = yield* decodeBody(request, StartRequest)
            if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed start request")
            const started = yield* startProgress(control, run(decoded.right, "events"))
            // the transcript hears each daemon's own waiting line: not the upfront list a spinner draws
            return Either.isLeft(started)
              ? yield* Effect.failCause(Cause.die(started.left))
              : startEventsResponse(started.right.pipe(Stream.drop(1)))
          }),
        )
        .handle("stop", ({ payload }) =>
          notFoundOnly(
            control.handle(new Stop({ selection: { ids: payload.ids, all: false }, reason: "cli" })),
          ),
        )
        .handle("wait", ({ payload }) =>
          notFoundOnly(control.handle(new Wait({ id: payload.id, reason: "cli" }))),
        )
        .handle("clean", ({ payload }) =>
          control
            .handle(
              new Clean({
                selection: { ids: payload.ids ?? [], all: false },
                ...(payload.namespaces === undefined ? {} : { namespaces: payload.namespaces }),
                reason: "cli",
              }),
            )
            .pipe(Effect.orDie),
        )
        // the log routes: aliases of the Logs and Tail commands (IDs qualified: the caller resolved
        // them; an ID the supervisor does not know gives no lines)
        .handle("logs", ({ payload }) =>
          (payload.ids.length === 0 ? Effect.succeed([]) : control.handle(logsCommand(payload, false))).pipe(
            Effect.catchTag("DaemonNotFound", () => Effect.succeed([])),
            Effect.orDie,
          ),
        )
        .handleRaw("logsStream", ({ request }) =>
          Effect.gen(function* () {
            // A raw handler: the body is decoded here (the typed client posts the same LogsQuery).
            const decoded = yield* decodeBody(request, LogsQuery)
            if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed logs query")
            const bad = queryProblem(decoded.right)
            if (bad !== undefined) return problem(400, "BadRequest", bad)
            return yield* logAlias(logsCommand(decoded.right, true))
          }),
        )
        .handleRaw("logsText", ({ request }) => logsText(textDeps)(request))
        .handleRaw("logsTextFrom", ({ request }) => logsTextFrom(textDeps)(request))
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
            const bad = queryProblem(q)
            if (bad !== undefined) return problem(400, "BadRequest", bad)
            const { ids, ...filters } = q
            return yield* logAlias(new Tail({ selection: { ids, all: false }, ...filters, reason: "cli" }))
          }),
        )
        .handle("clearLogs", ({ payload }) =>
          Effect.forEach(payload.ids, (id) => logs.clear(id).pipe(Effect.ignore)).pipe(
            Effect.as({ cleared: [...payload.ids] }),
          ),
        )
        .handle("definition", ({ payload }) =>
          Effect.gen(function* () {
            const { def } = yield* sup.get(payload.id)
            const { settings } = yield* SubscriptionRef.get(projects.snapshot)
            return maskDefinition(def, secretMatcher(settings.general.secret_patterns))
          }),
        )
        .handle("toggle", ({ payload }) => {
          const selection = { ids: payload.definitions.map((d) => d.id.qualified), all: false }
          return control
            .handle(
              payload.enabled
                ? new Enable({ selection, reason: "cli" })
                : new Disable({ selection, reason: "cli" }),
            )
            .pipe(Effect.orDie, Effect.as({ ok: true }))
        })
        .handle("disabled", () => sup.disabledIds.pipe(Effect.map((ids) => ({ ids: [...ids] }))))
        .handle("info", ({ urlParams }) =>
          Effect.gen(function* () {
            if (urlParams.cwd !== undefined) yield* projects.note(urlParams.cwd)
            const all = yield* sup.list
            const urls = yield* Ref.get(host.listeners)
            const { projects: known } = yield* SubscriptionRef.get(projects.snapshot)
            const info: SupervisorInfo = {
              pid: process.pid,
              version: host.version,
              started_at: host.startedAt,
              uptime_secs: Math.floor((Date.now() - host.startedAt) / 1000),
              state_dir: host.stateDir,
              socket: host.socket,
              web_url: urls.web,
              api_url: urls.api,
              ...(urls.proxy === undefined ? {} : { proxy_url: urls.proxy }),
              ...(urls.proxyTld === undefined ? {} : { proxy_tld: urls.proxyTld }),
              ...(urls.proxyProblem === undefined ? {} : { proxy_problem: urls.proxyProblem }),
              daemons: all.length,
              config_problems: known.flatMap((p) =>
                p.problem === undefined
                  ? []
                  : [{ dir: p.dir, namespace: projectNamespace(p) ?? null, problem: p.problem }],
              ),
              storage_problems: health.problems(),
            }
            return info
          }),
        )
        .handle("listFrom", ({ payload }) =>
          control
            .listFrom(payload)
            .pipe(Effect.map((entries) => ({ version: host.version, entries: entries ?? null }))),
        )
        .handleRaw("startFrom", ({ request }) => startFromHandler(request.json))
        .handleRaw("quick", ({ request }) => quickAnswer(control, host, presence)(request))
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
    )
  }),
)
