import { HttpApi } from "@effect/platform"
import { Option } from "effect"
import { Api } from "./Api.js"

/** A route of one daemon: its method and path segments, `["api", "daemons", ":id", "start"]`. */
export interface DaemonRoute {
  readonly method: string
  readonly segments: ReadonlyArray<string>
  /** Whether it takes a body (`input` does; the control actions do not). */
  readonly payload: boolean
}

/** The API's routes of one daemon (those with an `:id`), read from its definition. */
export const daemonRoutes = (): ReadonlyArray<DaemonRoute> => {
  const routes: Array<DaemonRoute> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      const segments = endpoint.path.split("/").slice(1)
      if (segments.includes(":id"))
        routes.push({ method: endpoint.method, segments, payload: Option.isSome(endpoint.payloadSchema) })
    },
  })
  return routes
}

/** The control actions of a daemon, `POST /api/daemons/{id}/<action>`: start, stop, ... */
export const controlActions = (): ReadonlyArray<string> =>
  daemonRoutes().flatMap(({ method, payload, segments: [api, daemons, id, action, ...rest] }) =>
    method === "POST" &&
    !payload &&
    api === "api" &&
    daemons === "daemons" &&
    id === ":id" &&
    action &&
    rest.length === 0
      ? [action]
      : [],
  )
