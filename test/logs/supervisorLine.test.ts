// The supervisor's own lines in a daemon's log (`note`): stored like the daemon's output, on a
// line of their own, never parsed as the daemon's structured output.
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { LogStore } from "../../src/logs/LogStore.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"
import { runWriter, tempDir, waitUntil } from "./helpers.js"

const ID = "proj/api"

const setup = Effect.gen(function* () {
  const dir = yield* tempDir
  const store = Context.get(
    yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
    LogStore,
  )
  const { rawPath } = yield* store.prepare(ID)
  return { store, rawPath }
})

const indexed = (store: Context.Tag.Service<LogStore>, lastId: number) =>
  waitUntil(
    `indexed id ${lastId}`,
    Effect.map(store.stats(ID), (s) => s.lastId >= lastId),
  )

describe("LogStore.note", () => {
  it.scopedLive("a line of its own, even after the daemon's unfinished last line", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo up; printf 'no newline'")
      yield* store.note(ID, "exited with code 1")
      yield* store.note(ID, "restarting: retry 1 of 2")
      yield* indexed(store, 4)
      expect((yield* store.query(ID)).map((e) => e.message)).toEqual([
        "up",
        "no newline",
        "[supervisor] exited with code 1",
        "[supervisor] restarting: retry 1 of 2",
      ])
    }),
  )

  it.scopedLive("log_format json: the daemon's lines keep their fields, the supervisor's have none", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(rawPath, `printf '%s\\n' '{"level":"error","msg":"boom"}'`)
      yield* store.note(ID, "exited with code 1")
      yield* indexed(store, 2)
      const [daemon, supervisor] = yield* store.query(ID)
      expect(daemon).toMatchObject({ level: "error", fields: { level: "error", msg: "boom" } })
      expect(supervisor).toEqual({
        id: 2,
        timestamp: supervisor!.timestamp,
        daemon_id: ID,
        message: "[supervisor] exited with code 1",
      })
      // a level filter keeps the daemon's lines only (the supervisor's have no level)
      expect((yield* store.query(ID, { level: "error" })).map((e) => e.id)).toEqual([1])
    }),
  )

  it.scopedLive("a daemon that never ran (nothing follows its log yet): the line is stored and read", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = Context.get(
        yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
        LogStore,
      )
      // a cron firing skipped before the daemon's first run says why in its log
      yield* store.note(ID, "cron: skipped: it never ran")
      yield* indexed(store, 1)
      expect((yield* store.query(ID)).map((e) => e.message)).toEqual([
        "[supervisor] cron: skipped: it never ran",
      ])
      // its first run's lines come after it
      const { rawPath } = yield* store.prepare(ID)
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo up")
      yield* indexed(store, 2)
      expect((yield* store.query(ID)).map((e) => e.message)).toEqual([
        "[supervisor] cron: skipped: it never ran",
        "up",
      ])
    }),
  )
})
