import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { eventsResponse } from "../../src/api/events.js"
import { makeEventLog } from "../../src/events/EventLog.js"
import { changed, makeHost } from "./eventFixtures.js"

const text = new TextDecoder()

/** The chunks of an events response's body, as text: the first `n` after its opening chunk. */
const chunksOf = (response: ReturnType<typeof eventsResponse>, n: number) =>
  Effect.flatMap(response, ({ body }) => {
    if (body._tag !== "Stream") throw new Error(`the events response is a stream, not ${body._tag}`)
    return Stream.runCollect(Stream.take(body.stream, n + 1)).pipe(
      Effect.map((c) =>
        Chunk.toReadonlyArray(c)
          .slice(1)
          .map((bytes) => text.decode(bytes)),
      ),
    )
  })

/** The streams of the web page and the dashboard share the work of each event (src/api/events.ts). */
describe("GET /api/events?entries=true, several streams at once", () => {
  it.scoped("each entry is looked up once for all streams, and comes with its event in one chunk", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      const host = yield* makeHost
      const lookedUp: Array<string> = []
      const entries = (id: string) =>
        Effect.sync(() => {
          lookedUp.push(id)
          return null
        })
      const open = (sse: boolean) => eventsResponse(log, host, { since: 0, ids: [], sse, entries })
      const readers = yield* Effect.fork(
        Effect.all([chunksOf(open(false), 2), chunksOf(open(false), 2), chunksOf(open(true), 2)], {
          concurrency: "unbounded",
        }),
      )
      yield* log.publish(changed("app/a"))
      yield* log.publish(changed("app/b"))
      const [first, second, sse] = yield* Fiber.join(readers)
      expect(lookedUp).toEqual(["app/a", "app/b"])
      expect(second).toEqual(first)
      const entryLine = (id: string) => `{"_tag":"DaemonEntry","id":"${id}","entry":null}\n`
      expect(first.map((chunk) => chunk.split("\n").length - 1)).toEqual([2, 2])
      expect(first[0]).toMatch(/^\{"_tag":"DaemonStateChanged","id":"app\/a",.*"seq":1,.*\}\n/)
      expect(first[0]?.endsWith(entryLine("app/a"))).toBe(true)
      expect(first[1]?.endsWith(entryLine("app/b"))).toBe(true)
      // the same texts as Server-Sent Events: the event with its seq as id, then the entry
      expect(sse[0]).toMatch(
        /^id: 1\nevent: DaemonStateChanged\ndata: \{"_tag":"DaemonStateChanged","id":"app\/a",.*"seq":1,.*\}\n\nevent: DaemonEntry\ndata: \{"_tag":"DaemonEntry","id":"app\/a","entry":null\}\n\n$/,
      )
    }),
  )
})
