/**
 * The typed client of the supervisor's HTTP API, for TypeScript automation:
 *
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "@effect/platform"
 * import { makeSupervisorClient } from "devsupervisor/client"
 *
 * const program = Effect.gen(function* () {
 *   const api = yield* makeSupervisorClient({ baseUrl: "http://127.0.0.1:3120", token })
 *   const daemons = yield* api.daemons.list({ urlParams: {} })
 *   yield* api.daemons.restart({ path: { id: "app/web" } })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
 * ```
 *
 * It is derived from the same `HttpApi` definition that the supervisor serves, so requests and
 * responses are typed and decoded with the API's own schemas. `id` path parameters are plain
 * qualified IDs (`app/web`): the client encodes them as one path segment.
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Api } from "../api/Api.js"

export { Api } from "../api/Api.js"
export type { ApiDaemonEntry, ControlResult, SystemStats } from "../domain/ApiDaemonEntry.js"
export type { LogClear, LogEntry } from "../domain/LogEntry.js"

export interface SupervisorClientOptions {
  /** The listener's URL, e.g. `http://127.0.0.1:3120` (`supervisor supervisor status --json` → `web_url`). */
  readonly baseUrl: string
  /** The API token (`supervisor supervisor token`), sent as `X-Supervisor-Token`. */
  readonly token: string
}

/** A client of every route; needs an `HttpClient` (e.g. `FetchHttpClient.layer`). */
export const makeSupervisorClient = (options: SupervisorClientOptions) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("X-Supervisor-Token", options.token)),
  })
