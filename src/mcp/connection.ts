import { HttpApiClient, type HttpClient } from "@effect/platform"
import { Context, type Effect, type Layer } from "effect"
import { Api } from "../api/Api.js"

/**
 * How the MCP server reaches the supervisor: the typed client of its HTTP API (src/api/Api.ts).
 * The CLI provides the connection (over the Unix socket, starting the supervisor when it is not
 * running), so that nothing here knows the CLI.
 */

const makeClient = () => HttpApiClient.make(Api)
/** The typed client of every route of the API. */
export type ApiClient = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** The supervisor, as the tools reach it. */
export class McpSupervisor extends Context.Tag("supervisor/McpSupervisor")<
  McpSupervisor,
  {
    readonly api: ApiClient
    /** The same connection for the routes the typed client does not stream (`GET /api/events`). */
    readonly http: HttpClient.HttpClient
  }
>() {}

/** Why the supervisor could not be reached (it is down and may not be started, another version...). */
export interface ConnectFailure {
  readonly _tag: string
  readonly message: string
}

/**
 * A connection for one tool call: `autoStart` as the CLI has it from the settings (true, or
 * "setting-off" when `settings.supervisor.auto_start = false`).
 */
export type Connect = (autoStart: true | "setting-off") => Layer.Layer<McpSupervisor, ConnectFailure>
