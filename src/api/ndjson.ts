// The ndjson routes (a start's events, log lines): how each declares the schema of its lines,
// and how the server encodes every line through it. v3's HttpApi has no streaming success
// schema (EFFECT-V3.md §6): a route declares text of `application/x-ndjson` and answers a raw
// stream; the item schema rides along as an annotation, which the OpenAPI document turns into
// `x-oai-itemSchema` (src/api/openapi.ts).
import { HttpApiSchema, HttpServerResponse } from "@effect/platform"
import { Option, Schema, type Stream } from "effect"
import * as AST from "effect/SchemaAST"
import { jsonEncoder } from "../domain/jsonEncoding.js"

export const NDJSON = "application/x-ndjson"

const NdjsonItem = Symbol.for("supervisor/api/NdjsonItem")

/** The declared success of an ndjson route: one `item` per line. */
export const ndjsonBody = (item: Schema.Schema.Any, description: string) =>
  Schema.String.pipe(
    HttpApiSchema.withEncoding({ kind: "Text", contentType: NDJSON }),
    Schema.annotations({ description, [NdjsonItem]: item }),
  )

/** The item schema of an ndjson route's declared success (its AST), if it is one. */
export const ndjsonItemOf = (ast: AST.AST): Schema.Schema.Any | undefined =>
  Option.getOrUndefined(AST.getAnnotation<Schema.Schema.Any>(NdjsonItem)(ast))

const utf8 = new TextEncoder()

/** Encodes values as ndjson lines (UTF-8, newline included) through `item`. */
export const ndjsonLines = <A, I>(item: Schema.Schema<A, I>): ((value: A) => Uint8Array) => {
  const json = jsonEncoder(item)
  return (value) => utf8.encode(`${json(value)}\n`)
}

/** Encodes a batch of values as ndjson lines in one chunk, through `item`. */
export const ndjsonChunk = <A, I>(item: Schema.Schema<A, I>): ((values: ReadonlyArray<A>) => Uint8Array) => {
  const json = jsonEncoder(item)
  return (values) => utf8.encode(values.map((value) => `${json(value)}\n`).join(""))
}

/** An ndjson response of `chunks` (lines made by `ndjsonLines` or `ndjsonChunk`). */
export const ndjsonResponse = (chunks: Stream.Stream<Uint8Array>, headers: Record<string, string> = {}) =>
  HttpServerResponse.stream(chunks, {
    contentType: NDJSON,
    headers: { "cache-control": "no-store", ...headers },
  })
