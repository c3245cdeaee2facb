// time_retention, line_retention and the archive hook over a real log store: what is archived,
// in which batches, what a failing hook keeps, and the hourly pass (TestClock).
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Ref, Schema, TestClock, TestContext } from "effect"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { ArchivedLogEntry } from "../../src/domain/LogEntry.js"
import { Settings } from "../../src/domain/Settings.js"
import { LogStore } from "../../src/logs/LogStore.js"
import type { ArchiveRun } from "../../src/supervisor/logArchive.js"
import { pruneForever, pruneLog, prunePass, retentionOf } from "../../src/supervisor/logRetention.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"
import { range, runWriter, tempDir, waitUntil } from "../logs/helpers.js"

const ID = "proj/web"
const settings = (logs: unknown = {}) => Schema.decodeUnknownSync(Settings)({ logs })
const daemon = (logs?: unknown) =>
  Schema.decodeUnknownSync(DaemonConfig)({ run: "x", dir: "/", ...(logs === undefined ? {} : { logs }) })

const withLines = (n: number) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const store = Context.get(
      yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
      LogStore,
    )
    const { rawPath } = yield* store.prepare(ID)
    yield* store.follow(ID, { format: "json" })
    yield* runWriter(rawPath, `for i in $(seq 1 ${n}); do echo "{\\"level\\":\\"info\\",\\"i\\":$i}"; done`)
    yield* waitUntil(
      "all indexed",
      Effect.map(store.stats(ID), (s) => s.lastId >= n),
    )
    return { store, dir: nodePath.dirname(rawPath) }
  })

/** An archive runner that records its runs; it fails from run number `failFrom` on. */
const recorder = (failFrom = Number.POSITIVE_INFINITY) =>
  Effect.gen(function* () {
    const runs = yield* Ref.make<ReadonlyArray<ArchiveRun>>([])
    const run = (r: ArchiveRun): Effect.Effect<boolean> =>
      Ref.modify(runs, (rs): [boolean, ReadonlyArray<ArchiveRun>] => [rs.length + 1 < failFrom, [...rs, r]])
    return { runs: Ref.get(runs), run }
  })
const parsed = (r: ArchiveRun): Array<ArchivedLogEntry> =>
  r.input
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as ArchivedLogEntry)

describe("retentionOf", () => {
  it("the daemon's keys first, else the settings; none when neither has one", () => {
    expect(retentionOf(daemon(), settings())).toBeUndefined()
    expect(retentionOf(daemon({ line_retention: 5 }), settings({ time_retention: "7d" }))).toEqual({
      lines: 5,
      age: Duration.days(7),
    })
    expect(retentionOf(daemon({ line_retention: 5 }), settings({ line_retention: 9 }))).toEqual({ lines: 5 })
    expect(retentionOf(daemon(), settings({ line_retention: 9 }))).toEqual({ lines: 9 })
  })
})

describe("pruneLog", () => {
  it.scopedLive(
    "line_retention with an archive hook: batches of batch_size, JSON lines, then the release",
    () =>
      Effect.gen(function* () {
        const { store } = yield* withLines(25)
        const hook = yield* recorder()
        const r = yield* pruneLog(store, ID, { lines: 5 }, { batchSize: 8, run: hook.run })
        expect(r).toEqual({ released: 20, kept: 0 })
        const runs = yield* hook.runs
        expect(runs.map((x) => [x.daemon, x.reason, parsed(x).length])).toEqual([
          [ID, "count", 8],
          [ID, "count", 8],
          [ID, "count", 4],
        ])
        const first = parsed(runs[0]!)[0]!
        expect(Object.keys(first)).toEqual([
          "id",
          "timestamp",
          "daemon_id",
          "message",
          "level",
          "fields",
          "time",
        ])
        expect(first).toMatchObject({
          id: 1,
          daemon_id: ID,
          message: '{"level":"info","i":1}',
          level: "info",
        })
        expect(first.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
        expect(runs.flatMap(parsed).map((e) => e.id)).toEqual(range(1, 20))
        expect((yield* store.query(ID)).map((e) => e.id)).toEqual(range(21, 25))
      }),
  )

  it.scopedLive("a failing hook keeps its batch and every later one; the next pass archives them", () =>
    Effect.gen(function* () {
      const { store } = yield* withLines(25)
      const failing = yield* recorder(2)
      const r = yield* pruneLog(store, ID, { lines: 5 }, { batchSize: 8, run: failing.run })
      expect(r).toEqual({ released: 8, kept: 12 })
      expect((yield* failing.runs).length).toBe(2) // the third batch is not even tried
      expect((yield* store.query(ID)).map((e) => e.id)).toEqual(range(9, 25))
      const working = yield* recorder()
      expect(yield* pruneLog(store, ID, { lines: 5 }, { batchSize: 8, run: working.run })).toEqual({
        released: 12,
        kept: 0,
      })
      expect((yield* working.runs).flatMap(parsed).map((e) => e.id)).toEqual(range(9, 20))
    }),
  )

  it.scopedLive(
    "time_retention: what was read more than the age before now (the Clock's) goes, reason age",
    () =>
      Effect.gen(function* () {
        const { store } = yield* withLines(10)
        const hook = yield* recorder()
        const prune = pruneLog(store, ID, { age: Duration.days(7) }, { batchSize: 100, run: hook.run })
        // under a TestClock: now is set by the test
        const at = (millis: number) =>
          Effect.gen(function* () {
            yield* TestClock.setTime(millis)
            return yield* prune
          }).pipe(Effect.provide(TestContext.TestContext))
        expect(yield* at(Date.now() + Duration.toMillis(Duration.days(6)))).toEqual({ released: 0, kept: 0 })
        expect(yield* at(Date.now() + Duration.toMillis(Duration.days(8)))).toEqual({ released: 10, kept: 0 })
        expect((yield* hook.runs).map((r) => [r.reason, parsed(r).length])).toEqual([["age", 10]])
      }),
  )

  it.scopedLive(
    "without a hook, the lines are released at once; prunePass skips daemons without retention",
    () =>
      Effect.gen(function* () {
        const { store } = yield* withLines(10)
        yield* prunePass(store, [{ id: ID, config: daemon() }], settings(), () => undefined)
        expect((yield* store.stats(ID)).firstId).toBe(1)
        yield* prunePass(
          store,
          [{ id: ID, config: daemon({ line_retention: 3 }) }],
          settings(),
          () => undefined,
        )
        expect((yield* store.query(ID)).map((e) => e.id)).toEqual([8, 9, 10])
      }),
  )
})

describe("pruneForever", () => {
  it.effect("a pass at once, then one an hour later, not before", () =>
    Effect.gen(function* () {
      const passes = yield* Ref.make(0)
      const fiber = yield* Effect.fork(pruneForever(Ref.update(passes, (n) => n + 1)))
      yield* TestClock.adjust("1 millis")
      expect(yield* Ref.get(passes)).toBe(1)
      yield* TestClock.adjust("59 minutes")
      expect(yield* Ref.get(passes)).toBe(1)
      yield* TestClock.adjust("1 minute")
      expect(yield* Ref.get(passes)).toBe(2)
      yield* TestClock.adjust("3 hours")
      expect(yield* Ref.get(passes)).toBe(5)
      yield* Fiber.interrupt(fiber)
    }),
  )
})
