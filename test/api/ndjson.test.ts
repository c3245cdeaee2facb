import { HttpApi, HttpApiSchema } from "@effect/platform"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { Api } from "../../src/api/Api.js"
import { NDJSON, ndjsonItemOf } from "../../src/api/ndjson.js"
import { openApiDocument } from "../../src/api/openapi.js"

/** Every route whose success is ndjson, with the item schema it declares (undefined: none). */
const ndjsonRoutes = () => {
  const routes: Array<{ readonly route: string; readonly item: unknown }> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, successes }) => {
      for (const { ast } of successes.values()) {
        if (Option.isNone(ast) || HttpApiSchema.getEncoding(ast.value).contentType !== NDJSON) continue
        routes.push({ route: `${endpoint.method} ${endpoint.path}`, item: ndjsonItemOf(ast.value) })
      }
    },
  })
  return routes
}

describe("ndjson routes", () => {
  it("every one declares the schema of its lines", () => {
    const routes = ndjsonRoutes()
    expect(routes.map((r) => r.route).sort()).toEqual([
      "GET /api/events",
      "GET /api/logs/:id/tail",
      "POST /api/cli/logs/follow",
      "POST /api/cli/logs/stream",
      "POST /api/cli/start-from",
      "POST /api/cli/start/stream",
    ])
    for (const r of routes) expect(r.item, r.route).toBeDefined()
  })

  it("the OpenAPI document states the line schema of the log tail (x-oai-itemSchema)", () => {
    const doc = openApiDocument()
    const media = doc.paths["/api/logs/{id}/tail"]?.get?.responses[200]?.content as Record<string, unknown>
    expect(media[NDJSON]).toMatchObject({
      schema: { type: "string" },
      "x-oai-itemSchema": { $ref: "#/components/schemas/LogStreamItem" },
    })
    expect(doc.components.schemas.LogStreamItem).toEqual({
      anyOf: [{ $ref: "#/components/schemas/LogEntry" }, { $ref: "#/components/schemas/LogClear" }],
    })
  })
})
