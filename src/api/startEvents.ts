// A start as a stream of ndjson events, for a CLI that prints a transcript (stdout not a
// terminal): `{ "outcome": ... }` for each daemon as soon as it is ready, completed or failed,
// then `{ "outcomes": [...] }` with all of them in start order. Used by `POST /api/cli/start/stream`
// (the full CLI) and `POST /api/cli/start-from` (the quick client).
import { HttpServerResponse } from "@effect/platform"
import { Effect, Fiber, Queue, Stream } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { StartOptions } from "../supervisor/Supervisor.js"
import { startWithDependencies } from "../supervisor/startOrder.js"

const encoder = new TextEncoder()

/** One ndjson line. */
export const ndjsonLine = (value: unknown) => encoder.encode(`${JSON.stringify(value)}\n`)

/** An ndjson response of `chunks`. */
export const ndjsonResponse = (chunks: Stream.Stream<Uint8Array>) =>
  HttpServerResponse.stream(chunks, {
    contentType: "application/x-ndjson",
    headers: { "cache-control": "no-store" },
  })

/**
 * The events of a start (see above). The start runs in the stream's scope: a client that
 * leaves interrupts it, as it would interrupt a plain start request.
 */
export const startEvents = (
  start: (def: DaemonDefinition, options: StartOptions) => Effect.Effect<StartOutcome>,
  requested: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
): Stream.Stream<Uint8Array> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const count = new Set([...dependencies, ...requested].map((d) => d.id.qualified)).size
      const settled = yield* Queue.unbounded<StartOutcome>()
      const run = yield* Effect.forkScoped(
        startWithDependencies(start, requested, dependencies, force, (o) => Queue.offer(settled, o)),
      )
      return Stream.fromQueue(settled).pipe(
        Stream.take(count),
        Stream.map((outcome) => ndjsonLine({ outcome })),
        Stream.concat(
          Stream.fromEffect(Fiber.join(run)).pipe(Stream.map((outcomes) => ndjsonLine({ outcomes }))),
        ),
      )
    }),
  )
