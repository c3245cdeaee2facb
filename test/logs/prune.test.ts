// Pruning by count and by age (time_retention, line_retention): the exact entries go, a record
// cut in two where needed; the raw and fields files lose their head; the follower goes on.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { LogStore } from "../../src/logs/LogStore.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"
import { checkTiling, range, readIndex, runWriter, tempDir, waitUntil } from "./helpers.js"

const ID = "proj/web"

const setup = Effect.gen(function* () {
  const dir = yield* tempDir
  const store = Context.get(
    yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
    LogStore,
  )
  const { rawPath } = yield* store.prepare(ID)
  const base = nodePath.join(dir, "proj--web")
  return { store, rawPath, indexPath: `${base}.idx`, fieldsPath: `${base}.fields` }
})

type Store = Context.Tag.Service<LogStore>
const waitForLastId = (store: Store, lastId: number) =>
  waitUntil(
    `indexed id ${lastId}`,
    Effect.map(store.stats(ID), (s) => s.lastId >= lastId),
  )
/** Blocks of the raw file that hold data (a punched hole holds none). */
const allocatedBytes = (path: string) => fs.statSync(path).blocks * 512

describe("pruning", () => {
  it.scopedLive("line_retention: the oldest entries go, exactly, even from the middle of a record", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup
      yield* store.follow(ID)
      // one write (seq's output to a file is block-buffered), so one read and one record: the cut falls inside it
      yield* runWriter(rawPath, "seq -f 'line %g' 1 100")
      yield* waitForLastId(store, 100)
      expect(readIndex(indexPath).records).toHaveLength(1)
      const cut = yield* store.pruneCut(ID, { lines: 30 })
      expect(cut).toMatchObject({ firstId: 1, upTo: 70, ageUpTo: 0 })
      const entries = yield* store.range(ID, { after: 0, upTo: 70 }).pipe(Stream.runCollect)
      expect([...entries].flat().map((e) => e.message)).toEqual(range(1, 70).map((i) => `line ${i}`))
      expect(yield* store.release(ID, { gen: cut.gen, upTo: cut.upTo })).toBe(70)
      const kept = yield* store.query(ID)
      expect(kept.map((e) => e.id)).toEqual(range(71, 100))
      expect(kept.map((e) => e.message)).toEqual(range(71, 100).map((i) => `line ${i}`))
      const { header } = checkTiling(indexPath)
      expect(header.next).toBe(71)
      expect(header.off).toBe(fs.readFileSync(rawPath, "latin1").indexOf("line 71\n"))
      // the follower goes on after the rewrite; ids too
      yield* runWriter(rawPath, "echo line 101")
      yield* waitForLastId(store, 101)
      expect((yield* store.query(ID, { lines: 1 }))[0]).toMatchObject({ id: 101, message: "line 101" })
      expect((yield* store.stats(ID)).firstId).toBe(71)
      // nothing more to prune; a second release of the same cut releases nothing
      expect((yield* store.pruneCut(ID, { lines: 31 })).upTo).toBe(70)
      expect(yield* store.release(ID, { gen: cut.gen, upTo: 70 })).toBe(0)
    }),
  )

  it.scopedLive("time_retention: whole records read before the cutoff; all of them when all are older", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo old 1; echo old 2")
      yield* waitForLastId(store, 2)
      const between = Date.now() + 1
      yield* Effect.sleep("20 millis")
      yield* runWriter(rawPath, "echo new 3")
      yield* waitForLastId(store, 3)
      const cut = yield* store.pruneCut(ID, { olderThan: between })
      expect(cut).toMatchObject({ firstId: 1, upTo: 2, ageUpTo: 2 })
      expect(yield* store.release(ID, cut)).toBe(2)
      expect((yield* store.query(ID)).map((e) => e.message)).toEqual(["new 3"])
      // every entry older: the index ends up empty, after the last one
      const all = yield* store.pruneCut(ID, { olderThan: Date.now() + 1000 })
      expect(all).toMatchObject({ firstId: 3, upTo: 3 })
      expect(yield* store.release(ID, all)).toBe(1)
      expect(yield* store.query(ID)).toEqual([])
      expect(yield* store.stats(ID)).toMatchObject({ firstId: 4, lastId: 3 })
      yield* runWriter(rawPath, "echo after 4")
      yield* waitForLastId(store, 4)
      expect((yield* store.query(ID)).map((e) => [e.id, e.message])).toEqual([[4, "after 4"]])
      checkTiling(indexPath)
    }),
  )

  it.scopedLive("the released bytes are punched out of the raw and the fields files; fields stay right", () =>
    Effect.gen(function* () {
      const { store, rawPath, fieldsPath } = yield* setup
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(
        rawPath,
        `awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "{\\"level\\":\\"info\\",\\"i\\":%d,\\"pad\\":\\"%s\\"}\\n", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }'`,
      )
      yield* waitForLastId(store, 20000)
      const before = allocatedBytes(rawPath)
      const fieldsBefore = allocatedBytes(fieldsPath)
      const cut = yield* store.pruneCut(ID, { lines: 1000 })
      expect(yield* store.release(ID, cut)).toBe(19000)
      expect(allocatedBytes(rawPath)).toBeLessThan(before / 4)
      expect(allocatedBytes(fieldsPath)).toBeLessThan(fieldsBefore / 4)
      const kept = yield* store.query(ID)
      expect(kept.map((e) => e.fields?.i)).toEqual(range(19001, 20000))
      expect(kept.every((e) => e.level === "info")).toBe(true)
    }),
  )

  it.scopedLive("a clear between the cut and the release: nothing is released", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup
      yield* store.follow(ID)
      yield* runWriter(rawPath, "for i in 1 2 3; do echo l$i; done")
      yield* waitForLastId(store, 3)
      const cut = yield* store.pruneCut(ID, { lines: 1 })
      yield* store.clear(ID)
      yield* runWriter(rawPath, "for i in 4 5 6; do echo l$i; done")
      yield* waitForLastId(store, 6)
      expect(yield* store.release(ID, cut)).toBe(0)
      expect((yield* store.query(ID)).map((e) => e.id)).toEqual([4, 5, 6])
    }),
  )
})
