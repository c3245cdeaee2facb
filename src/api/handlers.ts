// The spec's routes (`/api/...`): daemons and their control, the log tail, namespaces, proxies,
// process trees and system statistics. The CLI's own operations are in cliHandlers.ts.
import * as os from "node:os"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import { UsageHistory } from "../automation/history/UsageHistory.js"
import { ConfigLoader } from "../config/ConfigLoader.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { Control } from "../control/Control.js"
import { proxyView } from "../control/proxyView.js"
import { outcomeOf as ownOutcome } from "../control/startOne.js"
import type { ControlResult } from "../domain/ApiDaemonEntry.js"
import { Disable, Enable, Input, Namespaces, Restart, Start, Stop, Tail } from "../domain/Command.js"
import { InputRefused } from "../domain/CommandErrors.js"
import { type BadDaemonId, qualifiedId } from "../domain/DaemonId.js"
import { HostInfo } from "../domain/HostInfo.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { proxyEntries } from "../domain/slugs.js"
import { EventLog } from "../events/EventLog.js"
import { listPids } from "../process/procfs.js"
import { ProjectRegistry } from "../registry/ProjectRegistry.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { Api } from "./Api.js"
import { logStreamed } from "./commandHandlers.js"
import { eventsResponse, sinceOf, wantsSse } from "./events.js"
import { registerNamespace, removeNamespace } from "./namespaces.js"
import { problem } from "./problem.js"
import { parseSince } from "./tailQuery.js"

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

/** A selection of one daemon by its qualified ID. */
const one = (id: string) => ({ ids: [id], all: false })
/** The daemon's own outcome among a start's (its dependencies' come first; a replicated one's instances). */
const outcomeOf = (outcomes: ReadonlyArray<StartOutcome>, id: string): StartOutcome =>
  ownOutcome(outcomes, id) ?? outcomes[outcomes.length - 1]!

const countProcesses = () => Effect.sync(() => listPids().length)

/** The qualified ID of a daemon route's path, or a BadDaemonId (400). */
const pathId = (path: { readonly id: string }): Effect.Effect<string, BadDaemonId> => qualifiedId(path.id)

/** IDs given as a repeated or comma-separated URL parameter. */
const idParams = (given: string | ReadonlyArray<string>): Array<string> =>
  (typeof given === "string" ? [given] : given).flatMap((i) => i.split(",")).filter((i) => i !== "")

export const DaemonsLive = HttpApiBuilder.group(Api, "daemons", (h) =>
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const control = yield* Control
    const host = yield* HostInfo
    const config = yield* SupervisorConfig
    const projects = yield* ProjectRegistry
    const loader = yield* ConfigLoader
    const history = yield* UsageHistory
    const events = yield* EventLog
    /** A daemon's listing entry now, without usage figures (null once it is gone). */
    const entryNow = (id: string) =>
      Effect.map(control.listing({ usage: false, ids: [id] }), (entries) => entries[0] ?? null)
    // A control route: a malformed ID is a 400; a business failure is `ok: false` with why (HTTP
    // 200, as the spec says).
    const result =
      (f: (id: string) => Effect.Effect<ControlResult, { readonly message: string }>) =>
      ({ path }: { readonly path: { readonly id: string } }) =>
        Effect.flatMap(pathId(path), (id) =>
          f(id).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, error: e.message }))),
        )
    return (
      h
        .handle("list", ({ urlParams }) =>
          control.listing({
            usage: urlParams.usage ?? true,
            ...(urlParams.id === undefined ? {} : { ids: idParams(urlParams.id) }),
          }),
        )
        .handle("get", ({ path }) => Effect.flatMap(pathId(path), control.entry))
        // the seed's control routes: aliases of the commands (src/domain/Command.ts)
        .handle(
          "start",
          result((id) =>
            control
              .handle(new Start({ selection: one(id), force: false, reason: "api", wait: "ready" }))
              .pipe(Effect.map((outcomes) => outcomeResult(outcomeOf(outcomes, id)))),
          ),
        )
        .handle(
          "stop",
          result((id) =>
            control.handle(new Stop({ selection: one(id), reason: "api" })).pipe(Effect.as({ ok: true })),
          ),
        )
        .handle(
          "restart",
          result((id) =>
            control
              .handle(new Restart({ selection: one(id), if_running: false, reason: "api", wait: "ready" }))
              .pipe(Effect.map((outcomes) => outcomeResult(outcomeOf(outcomes, id)))),
          ),
        )
        .handle(
          "enable",
          result((id) =>
            control.handle(new Enable({ selection: one(id), reason: "api" })).pipe(Effect.as({ ok: true })),
          ),
        )
        .handle(
          "disable",
          result((id) =>
            control.handle(new Disable({ selection: one(id), reason: "api" })).pipe(Effect.as({ ok: true })),
          ),
        )
        .handle("input", ({ path, payload }) =>
          Effect.flatMap(pathId(path), (id) =>
            control
              .handle(new Input({ id, ...payload, enter: payload.enter ?? false, reason: "api" }))
              .pipe(
                Effect.catchTag("NothingSelected", "ConfigUnusable", (e) =>
                  Effect.fail(new InputRefused({ id, message: e.message })),
                ),
              ),
          ),
        )
        .handle("stats", () =>
          Effect.map(countProcesses(), (process_count) => ({
            process_count,
            cpu_count: os.cpus().length,
            total_memory: os.totalmem(),
          })),
        )
        .handle("usage", () => history.snapshot)
        // an alias of the Namespaces command
        .handle("namespaces", () => control.handle(new Namespaces({ reason: "api" })).pipe(Effect.orDie))
        .handle("registerNamespace", ({ payload }) => registerNamespace(projects, payload.dir))
        .handle("removeNamespace", ({ path }) => removeNamespace(projects, path.namespace))
        .handle("proxies", () =>
          Effect.gen(function* () {
            const view = yield* proxyView(loader, projects, config)
            return proxyEntries(view.slugs, yield* control.listing({ usage: true }), view.proxy)
          }),
        )
        .handle("tree", ({ path }) => Effect.flatMap(pathId(path), sup.tree))
        .handleRaw("events", ({ request, urlParams }) =>
          Effect.suspend(() => {
            const since = sinceOf({
              since: urlParams.since,
              lastEventId: request.headers["last-event-id"],
            })
            if (Either.isLeft(since)) return Effect.succeed(problem(400, "BadRequest", since.left))
            return eventsResponse(events, host, {
              since: since.right,
              ids: urlParams.id === undefined ? [] : idParams(urlParams.id),
              sse: wantsSse(request.headers.accept),
              usage: urlParams.usage === true ? history.live : undefined,
              entries: urlParams.entries === true ? entryNow : undefined,
            })
          }),
        )
        .handleRaw("tail", ({ path, urlParams }) =>
          Effect.gen(function* () {
            const id = yield* pathId(path)
            // a configured daemon that never ran is followed too: its lines come once it starts
            yield* control.entry(id)
            const since = urlParams.since === undefined ? undefined : parseSince(urlParams.since)
            if (since !== undefined && Either.isLeft(since)) return problem(400, "BadRequest", since.left)
            // an alias of the Tail command
            const command = new Tail({
              selection: { ids: [id], all: false },
              lines: urlParams.lines ?? 10,
              ...(since === undefined ? {} : { since: since.right }),
              ...(urlParams.grep === undefined ? {} : { grep: urlParams.grep }),
              reason: "api",
            })
            return yield* logStreamed(control, command, host)
          }),
        )
    )
  }),
)
