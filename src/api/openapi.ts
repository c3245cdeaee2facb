import { OpenApi } from "@effect/platform"
import { Api } from "./Api.js"

/**
 * The OpenAPI document of the HTTP API, from the same `HttpApi` definition that serves it (and
 * `GET /api/openapi.json`). Only the public routes: the CLI's own group (`/api/cli`) is not
 * served over TCP.
 */
export const openApiDocument = (): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(Api)
  const paths = Object.fromEntries(
    Object.entries(spec.paths).filter(([path]) => !path.startsWith("/api/cli/")),
  )
  return {
    ...spec,
    info: { ...spec.info, title: "supervisor HTTP API", description: "See docs/api.md" },
    paths,
    tags: (spec.tags ?? []).filter((t) => t.name !== "cli"),
    components: {
      ...spec.components,
      securitySchemes: {
        ...spec.components.securitySchemes,
        token: { type: "apiKey", in: "header", name: "X-Supervisor-Token" },
      },
    },
    security: [{ token: [] }],
  }
}
