import { HttpApi } from "@effect/platform"
import { Api } from "../api/Api.js"
import type { Family } from "./text.js"

/**
 * The route templates a request path is counted under, so that daemon IDs do not make one
 * series each: the API's endpoints (`/api/daemons/:id/start`) and the listener's own paths.
 */
const templates = (): ReadonlyArray<ReadonlyArray<string>> => {
  const out: Array<ReadonlyArray<string>> = [
    [""],
    ["index.html"],
    ["login"],
    ["logout"],
    ["metrics"],
    ["favicon.svg"],
    ["favicon.ico"],
  ]
  out.push(["api", "openapi.json"])
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      out.push(endpoint.path.split("/").slice(1))
    },
  })
  return out
}

let known: ReadonlyArray<ReadonlyArray<string>> | undefined

/** The route template of a path (`/api/daemons/:id`), or `other` when it matches none. */
export const routeOf = (pathname: string): string => {
  known ??= templates()
  const segments = pathname.split("/").slice(1)
  const match = known.find(
    (t) => t.length === segments.length && t.every((s, i) => s.startsWith(":") || s === segments[i]),
  )
  return match === undefined ? "other" : `/${match.join("/")}`
}

/** Requests answered, by method, route template and status code. */
export const makeRequestCounter = () => {
  const counts = new Map<string, { method: string; route: string; code: string; n: number }>()
  return {
    count: (method: string, route: string, code: number) => {
      const key = `${method} ${route} ${code}`
      const c = counts.get(key)
      if (c) c.n++
      else counts.set(key, { method, route, code: String(code), n: 1 })
    },
    family: (): Family => ({
      name: "supervisor_http_requests_total",
      type: "counter",
      help: "HTTP requests answered by the supervisor's API listeners, by method, route and status code",
      samples: [...counts.values()].map(({ method, route, code, n }) => ({
        labels: { method, route, code },
        value: n,
      })),
    }),
  }
}
export type RequestCounter = ReturnType<typeof makeRequestCounter>
