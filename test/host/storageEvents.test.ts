import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { EventLog, EventLogLive } from "../../src/events/EventLog.js"
import { StorageEventsLive } from "../../src/host/storageEvents.js"
import { StorageHealth } from "../../src/state/StorageHealth.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"

const full = Object.assign(new Error("no space"), { code: "ENOSPC" })

describe("storage health on the event log", () => {
  it.scoped(
    "a problem (even one from before the bridge started) and its recovery are published, with their facts",
    () =>
      Effect.gen(function* () {
        const health = yield* StorageHealth
        const file = "/srv/state/state.json"
        // before the bridge subscribes: replayed to it
        health.note({
          area: "state",
          file: "/srv/state/state.json.corrupt-1",
          code: "corrupt",
          message: "the state file was corrupt; kept aside",
          since: 1,
          failed_writes: 0,
        })
        const events = yield* Layer.build(StorageEventsLive.pipe(Layer.provideMerge(EventLogLive())))
        const log = yield* Effect.provide(EventLog, events)
        health.failed("state", file, full)
        health.failed("state", file, full)
        health.ok(file)
        const got = yield* log.subscribe({ since: 0 }).pipe(Stream.take(3), Stream.runCollect)
        expect(Chunk.toArray(got)).toMatchObject([
          { _tag: "StorageProblem", area: "state", operation: "read", code: "corrupt", seq: 1 },
          {
            _tag: "StorageProblem",
            area: "state",
            file,
            operation: "write",
            code: "ENOSPC",
            message: `cannot write the state file ${file} (ENOSPC); the disk is full: free space on the file system of /srv/state`,
            seq: 2,
          },
          {
            _tag: "StorageRecovered",
            area: "state",
            file,
            code: "ENOSPC",
            failed_writes: 2,
            message: expect.stringMatching(
              /^2 write\(s\) to \/srv\/state\/state\.json failed from .* \(ENOSPC\); it is writable again$/,
            ),
            seq: 3,
          },
        ])
      }).pipe(Effect.provide(StorageHealthFake)),
  )
})
