import { HttpClientRequest } from "@effect/platform"
import { Deferred, Effect, Option, Schema, Stream } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import { eventText } from "../../domain/eventText.js"
import { jsonEncoder } from "../../domain/jsonEncoding.js"
import { EventStreamItem } from "../../domain/SupervisorEvent.js"
import { cyan, dim, yellow } from "../../terminal/style.js"
import type { EventsOptions } from "../args/events.js"
import { SupervisorClient } from "../client.js"
import { ndjsonItems } from "../ndjson.js"
import { note } from "../output.js"
import { handleErrors, loadHere, withClient } from "../session.js"
import { withSlugProjects } from "../slugIds.js"

const decodeItem = Schema.decodeUnknownSync(EventStreamItem)
const itemJson = jsonEncoder(EventStreamItem)

/** `12:03:04.567`: the local time of an event. */
const clock = (at: number) => {
  const d = new Date(at)
  const two = (n: number) => String(n).padStart(2, "0")
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`
}

/** One readable line: time, daemon (or `supervisor`), what happened. */
const line = (e: EventStreamItem) => {
  if (e._tag === "EventsDropped") return yellow(`-- ${eventText(e)}; resume with --since ${e.first - 1}`)
  const who = "id" in e ? e.id : "supervisor"
  return `${dim(clock(e.at))} ${cyan(who)} ${eventText(e)}`
}

/** `supervisor events`: the event stream, until the supervisor stops or the reader goes away. */
export const events = (o: EventsOptions) =>
  handleErrors(
    Effect.gen(function* () {
      if (Option.isSome(o.since) && o.since.value < 0)
        return yield* new UsageError({ message: `--since must be 0 or more (got ${o.since.value})` })
      const config = yield* loadHere(false, "events reads no configuration")
      yield* withClient(
        config,
        Effect.gen(function* () {
          const c = yield* SupervisorClient
          let ids: ReadonlyArray<string> = []
          if (o.ids.length > 0) {
            const known = yield* c.api.daemons.list({ urlParams: {} }).pipe(Effect.orDie)
            ids = yield* Effect.forEach(o.ids, (id) =>
              Effect.flatMap(withSlugProjects(config, [id]), (cfg) => resolveId(id, cfg, known)),
            )
          }
          const params = new URLSearchParams()
          if (Option.isSome(o.since)) params.set("since", String(o.since.value))
          for (const id of ids) params.append("id", id)
          const query = params.toString()
          const request = HttpClientRequest.get(
            `http://localhost/api/events${query === "" ? "" : `?${query}`}`,
          )
          // A reader that goes away (`| head`) ends the command quietly, with exit 0.
          const gone = yield* Deferred.make<void>()
          const onError = (e: NodeJS.ErrnoException) => {
            if (e.code === "EPIPE") Deferred.unsafeDone(gone, Effect.void)
          }
          process.stdout.on("error", onError)
          const writeOut = (text: string) =>
            Effect.async<void>((resume) => {
              if (process.stdout.write(text)) resume(Effect.void)
              else process.stdout.once("drain", () => resume(Effect.void))
            })
          yield* ndjsonItems(c, request).pipe(
            Stream.map(decodeItem),
            Stream.runForEach((item) => writeOut(`${o.json ? itemJson(item) : line(item)}\n`)),
            Effect.orDie,
            Effect.raceFirst(Deferred.await(gone)),
            Effect.ensuring(Effect.sync(() => process.stdout.off("error", onError))),
          )
          if (yield* Deferred.isDone(gone)) return
          // the stream only ends when the supervisor ends it: say so, or it looks like a hang-up
          yield* note(dim("-- the supervisor stopped; no more events will come --"))
        }),
      )
    }),
  )
