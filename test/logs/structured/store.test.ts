// The log store with a structured log_format: lines parsed once by the follower into the fields
// file, read back with the entries, filtered by level, field and jq.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import type { LogEntry } from "../../../src/domain/LogEntry.js"
import { compileJqFilter } from "../../../src/logs/jq/eval.js"
import { LogStore, type LogStoreOptions } from "../../../src/logs/LogStore.js"
import { StorageHealthFake } from "../../../src/testing/FakeStorageHealth.js"
import { checkTiling, range, readIndex, runWriter, tempDir, waitUntil } from "../helpers.js"

const ID = "proj/api"

const setup = (options: Omit<LogStoreOptions, "dir"> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const store = Context.get(
      yield* Layer.build(LogStore.layer({ dir, ...options }).pipe(Layer.provide(StorageHealthFake))),
      LogStore,
    )
    const { rawPath } = yield* store.prepare(ID)
    const base = nodePath.join(dir, "proj--api")
    return { dir, store, rawPath, indexPath: `${base}.idx`, fieldsPath: `${base}.fields` }
  })

type Store = Context.Tag.Service<LogStore>
const waitForLastId = (store: Store, lastId: number) =>
  waitUntil(
    `indexed id ${lastId}`,
    Effect.map(store.stats(ID), (s) => s.lastId >= lastId),
  )
const shape = (es: ReadonlyArray<LogEntry>) => es.map((e) => [e.id, e.level, e.fields])

const JSON_LINES = [
  `printf '%s\\n' '{"level":"info","msg":"up","port":3000}'`,
  `printf '%s\\n' 'a stack trace line'`,
  `printf '%s\\r\\n' '{"level":"error","msg":"boom","req":{"path":"/x"}}'`,
  `printf '%s\\n' '{"level":30,"msg":"pino"}'`,
].join("; ")

describe("structured logs", () => {
  it.scopedLive("json: every entry keeps its message; parsed ones carry level and fields", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath, fieldsPath } = yield* setup()
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(rawPath, JSON_LINES)
      yield* waitForLastId(store, 4)
      const all = yield* store.query(ID)
      expect(all.map((e) => e.message)).toEqual([
        '{"level":"info","msg":"up","port":3000}',
        "a stack trace line",
        '{"level":"error","msg":"boom","req":{"path":"/x"}}',
        '{"level":30,"msg":"pino"}',
      ])
      expect(shape(all)).toEqual([
        [1, "info", { level: "info", msg: "up", port: 3000 }],
        [2, undefined, undefined],
        [3, "error", { level: "error", msg: "boom", req: { path: "/x" } }],
        [4, "info", { level: 30, msg: "pino" }],
      ])
      expect("level" in all[1]!).toBe(false)
      // one fields line per entry, referred to by the record
      const { records } = checkTiling(indexPath)
      expect(records.every((r) => r.fo !== undefined && r.fe !== undefined)).toBe(true)
      expect(fs.readFileSync(fieldsPath, "utf8").split("\n")).toHaveLength(5)
      // the tail and the pages carry them too
      const tail = yield* store.tail(ID, { lines: 2 }).pipe(Stream.take(2), Stream.runCollect)
      expect([...tail].map((e) => ("level" in e ? e.level : undefined))).toEqual(["error", "info"])
      const pages = yield* store.pages(ID).pipe(Stream.runCollect)
      expect([...pages].flat().map((e) => e.level)).toEqual(["info", undefined, "error", "info"])
    }),
  )

  it.scopedLive("filters: --level is a minimum, --field KEY=VALUE (dotted paths, JSON values), --jq", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(rawPath, JSON_LINES)
      yield* waitForLastId(store, 4)
      const ids = (q: Parameters<Store["query"]>[1]) =>
        Effect.map(store.query(ID, q), (es) => es.map((e) => e.id))
      expect(yield* ids({ level: "info" })).toEqual([1, 3, 4])
      expect(yield* ids({ level: "warn" })).toEqual([3])
      expect(yield* ids({ level: "trace", lines: 1 })).toEqual([4])
      expect(yield* ids({ fields: [["port", "3000"]] })).toEqual([1])
      expect(yield* ids({ fields: [["req.path", "/x"]] })).toEqual([3])
      expect(
        yield* ids({
          fields: [
            ["msg", "boom"],
            ["level", "info"],
          ],
        }),
      ).toEqual([])
      expect(yield* ids({ jq: compileJqFilter('.msg == "pino" or .fields.port == 3000') })).toEqual([1, 4])
      expect(yield* ids({ jq: compileJqFilter("(.fields | not)"), grep: "stack" })).toEqual([2])
    }),
  )

  it.scopedLive("logfmt and auto; a text daemon writes no fields file and its records say nothing more", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath, fieldsPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo 'level=info msg=text'")
      yield* waitForLastId(store, 1)
      expect(fs.existsSync(fieldsPath)).toBe(false)
      expect(readIndex(indexPath).records[0]).toEqual(expect.not.objectContaining({ fo: expect.anything() }))
      expect((yield* store.query(ID))[0]).toEqual(expect.not.objectContaining({ level: expect.anything() }))
      // the format applies to the lines stored from now on
      yield* store.follow(ID, { format: "logfmt" })
      yield* runWriter(rawPath, "echo 'level=warn msg=\"disk low\" pct=91'; echo 'no pairs'")
      yield* waitForLastId(store, 3)
      yield* store.follow(ID, { format: "auto" })
      yield* runWriter(rawPath, `echo 'level=debug x=1'; echo 'port=3000 is up'; echo '{"level":"fatal"}'`)
      yield* waitForLastId(store, 6)
      expect(shape(yield* store.query(ID))).toEqual([
        [1, undefined, undefined],
        [2, "warn", { level: "warn", msg: "disk low", pct: "91" }],
        [3, undefined, undefined],
        [4, "debug", { level: "debug", x: "1" }],
        [5, undefined, undefined],
        [6, "fatal", { level: "fatal" }],
      ])
      checkTiling(indexPath)
    }),
  )

  it.scopedLive("a clear empties the fields file; ids and fields go on after it", () =>
    Effect.gen(function* () {
      const { store, rawPath, fieldsPath } = yield* setup()
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(rawPath, `for i in 1 2 3; do echo "{\\"level\\":\\"info\\",\\"i\\":$i}"; done`)
      yield* waitForLastId(store, 3)
      yield* store.clear(ID)
      expect(fs.statSync(fieldsPath).size).toBe(0)
      yield* runWriter(rawPath, `echo '{"level":"warn","i":4}'`)
      yield* waitForLastId(store, 4)
      expect(shape(yield* store.query(ID))).toEqual([[4, "warn", { level: "warn", i: 4 }]])
    }),
  )

  it.scopedLive("a flood of JSON lines: every entry parsed, in order, across many records", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup()
      yield* store.follow(ID, { format: "json" })
      yield* runWriter(
        rawPath,
        `awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "{\\"level\\":\\"%s\\",\\"i\\":%d}\\n", (i % 10 == 0 ? "error" : "info"), i }'`,
      )
      yield* waitForLastId(store, 20000)
      const errors = yield* store.query(ID, { level: "error" })
      expect(errors.map((e) => e.fields?.i)).toEqual(range(1, 2000).map((i) => i * 10))
      expect(readIndex(indexPath).records.length).toBeGreaterThan(1)
      checkTiling(indexPath)
    }),
  )
})
