import { HttpApi, OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { Option } from "effect"
import { Api } from "./Api.js"
import { NDJSON, ndjsonItemOf } from "./ndjson.js"

const isPublic = (path: string) => !path.startsWith("/api/cli/")

/**
 * The OpenAPI document of the HTTP API, from the same `HttpApi` definition that serves it (and
 * `GET /api/openapi.json`). Only the public routes: the CLI's own group (`/api/cli`) is not
 * served over TCP. An ndjson route's line schema is its media type's `x-oai-itemSchema` (the
 * OpenAPI registry's name for 3.2's `itemSchema` in earlier versions).
 */
export const openApiDocument = (): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(Api)
  const paths = Object.fromEntries(Object.entries(spec.paths).filter(([path]) => isPublic(path)))
  const schemas = { ...spec.components.schemas }
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, successes }) => {
      const path = endpoint.path.replace(/:(\w+)\??/g, "{$1}")
      if (!isPublic(path)) return
      for (const [status, { ast }] of successes) {
        const item = Option.isSome(ast) ? ndjsonItemOf(ast.value) : undefined
        const content = paths[path]?.[endpoint.method.toLowerCase() as "get"]?.responses[status]?.content
        // the generator writes every content type; its type names only the common ones
        const media = (content as Record<string, object | undefined> | undefined)?.[NDJSON]
        if (item === undefined || media === undefined) continue
        Object.assign(media, { "x-oai-itemSchema": OpenApiJsonSchema.makeWithDefs(item, { defs: schemas }) })
      }
    },
  })
  return {
    ...spec,
    info: { ...spec.info, title: "supervisor HTTP API", description: "See docs/api.md" },
    paths,
    tags: (spec.tags ?? []).filter((t) => t.name !== "cli"),
    components: {
      ...spec.components,
      schemas,
      securitySchemes: {
        ...spec.components.securitySchemes,
        token: { type: "apiKey", in: "header", name: "X-Supervisor-Token" },
      },
    },
    security: [{ token: [] }],
  }
}
