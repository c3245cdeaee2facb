import { type HttpClientRequest, HttpClientResponse } from "@effect/platform"
import * as Ndjson from "@effect/platform/Ndjson"
import { Stream } from "effect"
import type { SupervisorClient } from "./client.js"

/**
 * The items of an ndjson answer of the supervisor, as they arrive. The body is decoded as one
 * text: a character cut between two reads does not become two U+FFFD.
 */
export const ndjsonItems = (client: SupervisorClient["Type"], request: HttpClientRequest.HttpClientRequest) =>
  HttpClientResponse.stream(client.http.execute(request)).pipe(
    Stream.decodeText(),
    Stream.pipeThroughChannel(Ndjson.unpackString()),
  )
