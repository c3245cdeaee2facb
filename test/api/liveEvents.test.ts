import { createServer, get, type IncomingMessage } from "node:http"
import { Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { liveEventsBody } from "../../src/api/liveEvents.js"
import { makeEventLog } from "../../src/events/EventLog.js"
import { PromptResponse } from "../../src/host/promptResponse.js"
import { changed, makeHost } from "./eventFixtures.js"

/** A response stand-in: what was written, as ndjson items; `stall` holds every write until `release`. */
const sink = () => {
  const written: Array<string> = []
  let held: Array<() => void> = []
  let stalled = false
  const out = new Writable({
    objectMode: true,
    highWaterMark: 1,
    write: (chunk: Uint8Array, _encoding, done) => {
      written.push(new TextDecoder().decode(chunk))
      if (stalled) held.push(done)
      else done()
    },
  })
  const items = () =>
    written
      .join("")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { _tag: string; seq?: number; id?: string; first?: number; last?: number })
  return {
    out,
    items,
    stall: () => {
      stalled = true
    },
    release: () => {
      stalled = false
      const waiting = held
      held = []
      for (const done of waiting) done()
    },
  }
}

const flowing = () => new Promise((ok) => setImmediate(ok))

describe("the event stream without samples or entries (src/api/liveEvents.ts)", () => {
  it.scoped("an event reaches the response inside its publication; ?since replays first; ids filter", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      const host = yield* makeHost
      yield* log.publish(changed("app/a"))
      const body = yield* liveEventsBody(log, host, { since: 0, ids: ["app/b"], sse: false })
      const s = sink()
      body.pipe(s.out)
      yield* Effect.promise(flowing)
      expect(s.items()).toEqual([]) // the replayed event is app/a's
      yield* log.publish(changed("app/b"))
      // no yield since the publication: no fiber ran between it and the write
      expect(s.items().map((e) => [e.seq, e.id])).toEqual([[2, "app/b"]])
      yield* log.publish(changed("app/a"))
      yield* log.publish(changed("app/b"))
      expect(s.items().map((e) => e.seq)).toEqual([2, 4])
      body.destroy()
    }),
  )

  it.scoped(
    "a reader that stops reading holds at most a few messages, then gets a marker and the latest",
    () =>
      Effect.gen(function* () {
        const log = yield* makeEventLog({ retain: 20 })
        const host = yield* makeHost
        const body = yield* liveEventsBody(log, host, { since: undefined, ids: [], sse: false })
        const s = sink()
        body.pipe(s.out)
        yield* Effect.promise(flowing)
        s.stall()
        for (let i = 0; i < 200; i++) yield* log.publish(changed(`app/d${i}`))
        // what waits for the reader is bounded, whatever it missed
        expect(body.readableLength).toBeLessThanOrEqual(16)
        const before = s.items().length
        expect(before).toBeLessThan(20)
        s.release()
        while (s.items().at(-1)?.seq !== 200) yield* Effect.promise(flowing)
        const after = s.items().slice(before)
        const marker = after.find((e) => e._tag === "EventsDropped")
        expect(marker).toBeDefined()
        // after the marker, the retained events in order, up to the latest
        const rest = after.slice(after.indexOf(marker!) + 1).map((e) => e.seq)
        expect(rest).toEqual(
          Array.from({ length: 200 - (marker!.last ?? 0) }, (_, i) => (marker!.last ?? 0) + 1 + i),
        )
        const seqs = s.items().flatMap((e) => (e.seq === undefined ? [] : [e.seq]))
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
        body.destroy()
      }),
  )

  it.scoped("the stream ends at the supervisor's shutdown", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      const host = yield* makeHost
      const sse = yield* liveEventsBody(log, host, { since: undefined, ids: [], sse: true })
      const text: Array<string> = []
      sse.on("data", (chunk: Uint8Array) => text.push(new TextDecoder().decode(chunk)))
      const ended = new Promise((ok) => sse.once("end", ok))
      yield* log.publish(changed("app/a"))
      yield* Deferred.succeed(host.shutdown, "stop")
      yield* Effect.promise(() => ended)
      expect(text.join("")).toMatch(/^: events\n\nid: 1\nevent: DaemonStateChanged\ndata: \{.*\}\n\n$/)
      // a publication after the end reaches nobody and fails nothing
      yield* log.publish(changed("app/b"))
    }),
  )

  it.scoped("a body listens from its first read (one never read costs nothing) until it is destroyed", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      const host = yield* makeHost
      let listening = 0
      const counted = {
        ...log,
        listen: (listener: Parameters<typeof log.listen>[0]) => {
          listening += 1
          const own = log.listen(listener)
          return {
            last: own.last,
            stop: () => {
              listening -= 1
              own.stop()
            },
          }
        },
      }
      // never read: as for a HEAD request, whose body the server does not send
      yield* liveEventsBody(counted, host, { since: undefined, ids: [], sse: true })
      yield* log.publish(changed("app/a"))
      expect(listening).toBe(0)
      const read = yield* liveEventsBody(counted, host, { since: undefined, ids: [], sse: false })
      // what comes between the request and the first read is replayed, not lost
      yield* log.publish(changed("app/b"))
      const got: Array<string> = []
      read.on("data", (chunk: Uint8Array) => got.push(new TextDecoder().decode(chunk)))
      yield* Effect.promise(flowing)
      expect(listening).toBe(1)
      expect(got.join("")).toContain('"id":"app/b"')
      expect(got.join("")).not.toContain('"id":"app/a"')
      read.destroy()
      expect(listening).toBe(0)
      yield* log.publish(changed("app/c"))
      expect(got.join("")).not.toContain('"id":"app/c"')
    }),
  )

  it.scoped("served by a Node server as the API serves it: the headers at once, then each event", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      const host = yield* makeHost
      const body = yield* liveEventsBody(log, host, { since: undefined, ids: [], sse: false })
      // as @effect/platform-node serves a raw body: the head, then the body piped to the response
      const server = createServer({ ServerResponse: PromptResponse }, (_req, res) => {
        res.writeHead(200, { "content-type": "application/x-ndjson" })
        pipeline(body, res).catch(() => undefined)
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
      yield* Effect.promise(() => new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok)))
      const { port } = server.address() as { port: number }
      let text = ""
      const response = yield* Effect.promise(
        () =>
          new Promise<IncomingMessage>((ok) => {
            get({ host: "127.0.0.1", port, path: "/" }, (res) => {
              res.setEncoding("utf8")
              res.on("data", (d: string) => {
                text += d
              })
              ok(res)
            })
          }),
      )
      // the headers came while nothing was published
      expect(response.statusCode).toBe(200)
      yield* log.publish(changed("app/a"))
      while (!text.includes("\n")) yield* Effect.promise(flowing)
      expect(JSON.parse(text.trim())).toMatchObject({ _tag: "DaemonStateChanged", id: "app/a", seq: 1 })
      response.destroy()
    }),
  )
})
