import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Either, Fiber, Layer, Queue, Stream } from "effect"
import { isLogClear, type LogClear, type LogEntry } from "../../src/domain/LogEntry.js"
import { LogStore, type LogStoreOptions, makeLogStore } from "../../src/logs/LogStore.js"
import { StorageHealthFake, withFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"
import { checkTiling, range, readIndex, runWriter, tempDir, waitUntil } from "./helpers.js"

const ID = "proj/web"

/** A store over a fresh temp dir, living as long as the test's scope. */
const setup = (options: Omit<LogStoreOptions, "dir"> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const ctx = yield* Layer.build(LogStore.layer({ dir, ...options }).pipe(Layer.provide(StorageHealthFake)))
    const store = Context.get(ctx, LogStore)
    const { rawPath } = yield* store.prepare(ID)
    const indexPath = nodePath.join(dir, "proj--web.idx")
    return { dir, store, rawPath, indexPath }
  })

type Store = Context.Tag.Service<LogStore>

const waitForLastId = (store: Store, lastId: number, id = ID) =>
  waitUntil(
    `${id} has indexed id ${lastId}`,
    Effect.map(store.stats(id), (s) => s.lastId >= lastId),
  )

const messages = (entries: ReadonlyArray<LogEntry>) => entries.map((e) => e.message)
const ids = (entries: ReadonlyArray<LogEntry>) => entries.map((e) => e.id)

/** Collects a stream into a queue in the background, to take items as they come. */
const collect = <A, E>(stream: Stream.Stream<A, E>) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<A>()
    const fiber = yield* stream.pipe(
      Stream.runForEach((a) => Queue.offer(queue, a)),
      Effect.forkScoped,
    )
    const take = (n: number) =>
      Effect.all(Array.from({ length: n }, () => Queue.take(queue))).pipe(
        Effect.timeoutFail({
          duration: "10 seconds",
          onTimeout: () => new Error(`timed out taking ${n} items`),
        }),
      )
    return { queue, fiber, take }
  })

describe("LogStore", () => {
  it.scopedLive(
    "prepare creates a missing logs directory (0700) and the output file (0600), and keeps both",
    () =>
      Effect.gen(function* () {
        const root = yield* tempDir
        const dir = nodePath.join(root, "state", "logs") // neither exists yet
        const store = Context.get(
          yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
          LogStore,
        )
        const { rawPath } = yield* store.prepare(ID)
        // the modes asked for, less what the umask takes: as a directory and a file made so here
        const refDir = nodePath.join(root, "ref-dir")
        const refFile = nodePath.join(root, "ref-file")
        fs.mkdirSync(refDir, { mode: 0o700 })
        fs.writeFileSync(refFile, "", { mode: 0o600 })
        expect(fs.statSync(dir).mode & 0o777).toBe(fs.statSync(refDir).mode & 0o777)
        expect(fs.statSync(rawPath).mode & 0o777).toBe(fs.statSync(refFile).mode & 0o777)
        fs.appendFileSync(rawPath, "kept\n")
        yield* store.prepare(ID)
        yield* store.follow(ID)
        expect(fs.readFileSync(rawPath, "utf8")).toBe("kept\n")
        // the directory removed behind the store's back is made again
        yield* store.unfollow(ID)
        fs.rmSync(dir, { recursive: true })
        yield* store.prepare(ID)
        expect(fs.statSync(rawPath).size).toBe(0)
      }),
  )

  it.scopedLive(
    "retire indexes the rest (a last line without a newline too) and closes the files; follow resumes",
    () =>
      Effect.gen(function* () {
        const { store, rawPath, indexPath } = yield* setup({ partialLineFlush: "1 hour" })
        yield* store.follow(ID)
        yield* runWriter(rawPath, "echo zero")
        yield* waitForLastId(store, 1)
        // the tail is reading once it gave the stored line
        const tail = yield* collect(store.tail(ID, { lines: 1 }))
        expect(messages((yield* tail.take(1)) as Array<LogEntry>)).toEqual(["zero"])
        yield* runWriter(rawPath, "echo one; echo two")
        yield* store.retire(ID)
        // no wait: every byte is indexed when retire returns
        expect(messages(yield* store.query(ID))).toEqual(["zero", "one", "two"])
        expect(yield* store.isFollowing(ID)).toBe(false)
        // a note is indexed (it follows again)
        yield* store.note(ID, "stopped by hand")
        yield* waitForLastId(store, 4)
        yield* store.retire(ID)
        // nothing follows now: a start's `follow` resumes where the index ends
        yield* runWriter(rawPath, "echo three; printf 'no newline'")
        expect(yield* store.isFollowing(ID)).toBe(false)
        expect((yield* store.stats(ID)).lastId).toBe(4)
        yield* store.follow(ID)
        yield* waitForLastId(store, 5)
        // the partial line waits for partialLineFlush (an hour) while followed; retire stores it
        yield* store.retire(ID)
        expect(messages(yield* store.query(ID)).slice(3)).toEqual([
          "[supervisor] stopped by hand",
          "three",
          "no newline",
        ])
        expect(checkTiling(indexPath).end).toBe(fs.statSync(rawPath).size)
        // the tail went on through all of it
        expect(messages((yield* tail.take(5)) as Array<LogEntry>)).toEqual([
          "one",
          "two",
          "[supervisor] stopped by hand",
          "three",
          "no newline",
        ])
      }),
  )

  it.scopedLive("indexes every line in order with increasing ids; records tile the raw file", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup()
      yield* store.follow(ID)
      yield* store.follow(ID) // idempotent
      expect(yield* store.isFollowing(ID)).toBe(true)
      yield* runWriter(rawPath, "i=1; while [ $i -le 200 ]; do echo line $i; i=$((i+1)); done")
      yield* waitForLastId(store, 200)
      const all = yield* store.query(ID)
      expect(ids(all)).toEqual(range(1, 200))
      expect(messages(all)).toEqual(range(1, 200).map((i) => `line ${i}`))
      expect(all[0]!.daemon_id).toBe("proj/web")
      expect(all[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const { records, end } = checkTiling(indexPath)
      expect(end).toBe(fs.statSync(rawPath).size)
      expect(records.every((r) => !r.late)).toBe(true)
    }),
  )

  it.scopedLive("captures stdout and stderr written to the same O_APPEND fd, in write order", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "for i in 1 2 3 4 5; do echo out $i; echo err $i >&2; done")
      yield* waitForLastId(store, 10)
      expect(messages(yield* store.query(ID))).toEqual(range(1, 5).flatMap((i) => [`out ${i}`, `err ${i}`]))
    }),
  )

  it.scopedLive("resumes after a restart: lines written meanwhile are late, no duplicates, no gaps", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const indexPath = nodePath.join(dir, "proj--web.idx")
      // one supervisor lifetime: build the layer, run, close its scope
      const life = <A, E>(body: (store: Store) => Effect.Effect<A, E>) =>
        Effect.scoped(
          Effect.flatMap(Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))), (ctx) =>
            body(Context.get(ctx, LogStore)),
          ),
        )

      const rawPath = yield* life((store) =>
        Effect.gen(function* () {
          const { rawPath } = yield* store.prepare(ID)
          yield* store.follow(ID)
          yield* runWriter(rawPath, "for i in $(seq 1 50); do echo a$i; done")
          yield* waitForLastId(store, 50)
          return rawPath
        }),
      )
      // the daemon keeps writing while no supervisor runs; the index tail got torn by the crash
      yield* runWriter(rawPath, "for i in $(seq 51 80); do echo a$i; done")
      fs.appendFileSync(indexPath, '{"first":51,"n":3,"off":')

      yield* life((store) =>
        Effect.gen(function* () {
          yield* store.follow(ID)
          yield* waitForLastId(store, 80)
          yield* runWriter(rawPath, "for i in $(seq 81 90); do echo a$i; done")
          yield* waitForLastId(store, 90)
          const all = yield* store.query(ID)
          expect(ids(all)).toEqual(range(1, 90))
          expect(messages(all)).toEqual(range(1, 90).map((i) => `a${i}`))
        }),
      )
      const { records } = checkTiling(indexPath)
      const lateIds = records.filter((r) => r.late).flatMap((r) => range(r.first, r.first + r.n - 1))
      expect(lateIds).toEqual(range(51, 80))
    }),
  )

  it.scopedLive("marks bytes from before prepare as late, and the new daemon's first line as live", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const rawPath = nodePath.join(dir, "proj--web.out")
      fs.writeFileSync(rawPath, "old 1\nold 2\nunterminated")
      const store = yield* withFakeStorageHealth(makeLogStore({ dir }))
      yield* store.prepare(ID)
      yield* runWriter(rawPath, "echo new 1; echo new 2")
      yield* store.follow(ID)
      yield* waitForLastId(store, 5)
      expect(messages(yield* store.query(ID))).toEqual(["old 1", "old 2", "unterminated", "new 1", "new 2"])
      const { records } = readIndex(nodePath.join(dir, "proj--web.idx"))
      expect(records.map((r) => [r.first, r.n, r.late])).toEqual([
        [1, 3, true],
        [4, 2, false],
      ])
    }),
  )

  it.scopedLive("prepare while following keeps the old daemon's partial last line apart", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup({ partialLineFlush: "1 minute" })
      yield* store.follow(ID)
      yield* runWriter(rawPath, "printf 'done\\nhalf a line'")
      yield* waitForLastId(store, 1)
      yield* store.prepare(ID) // the next daemon starts here
      yield* runWriter(rawPath, "echo fresh start")
      yield* waitForLastId(store, 3)
      expect(messages(yield* store.query(ID))).toEqual(["done", "half a line", "fresh start"])
    }),
  )

  it.scopedLive("a raw file truncated behind the store's back starts a new generation", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "for i in $(seq 1 20); do echo line $i; done")
      yield* waitForLastId(store, 20)
      const tail = yield* collect(store.tail(ID, { lines: 1 }))
      yield* tail.take(1)
      fs.truncateSync(rawPath, 0)
      yield* runWriter(rawPath, "echo x")
      expect(yield* tail.take(2)).toEqual([
        { _clear: true, _gen: 1 },
        { id: 21, timestamp: expect.any(String), daemon_id: ID, message: "x" },
      ])
    }),
  )

  it.scopedLive("queries by lines, since/until, grep, regex, case and raw", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup()
      yield* store.follow(ID)
      const batch = (script: string, lastId: number) =>
        Effect.gen(function* () {
          yield* runWriter(rawPath, script)
          yield* waitForLastId(store, lastId)
          // the next batch must get a later timestamp
          const ts = Math.max(...readIndex(indexPath).records.map((r) => r.ts))
          yield* waitUntil(
            "the clock passed the last record",
            Effect.sync(() => Date.now() > ts),
          )
        })
      yield* batch("printf 'start\\nan Error\\nwarn 1\\n'", 3)
      yield* batch("printf 'ERROR two\\nwarn 22\\n\\033[31mred error\\033[0m\\n'", 6)
      yield* batch("printf 'error three\\nend\\n'", 8)
      const { records } = readIndex(indexPath)
      const tsOf = (id: number) => records.find((r) => id >= r.first && id < r.first + r.n)!.ts

      expect(messages(yield* store.query(ID, { lines: 2 }))).toEqual(["error three", "end"])
      expect(messages(yield* store.query(ID, { lines: 0 }))).toEqual([])
      expect(ids(yield* store.query(ID, { lines: 100 }))).toEqual(range(1, 8))
      expect(ids(yield* store.query(ID, { since: tsOf(4) }))).toEqual(range(4, 8))
      expect(ids(yield* store.query(ID, { until: tsOf(6) }))).toEqual(range(1, 6))
      expect(ids(yield* store.query(ID, { since: tsOf(4), until: tsOf(6) }))).toEqual(range(4, 6))
      expect(ids(yield* store.query(ID, { since: tsOf(8) + 1 }))).toEqual([])
      expect(messages(yield* store.query(ID, { grep: "error" }))).toEqual([
        "an Error",
        "ERROR two",
        "\x1b[31mred error\x1b[0m",
        "error three",
      ])
      expect(messages(yield* store.query(ID, { grep: "error", caseSensitive: true }))).toEqual([
        "\x1b[31mred error\x1b[0m",
        "error three",
      ])
      expect(messages(yield* store.query(ID, { grep: "ERROR", lines: 2, raw: true }))).toEqual([
        "red error",
        "error three",
      ])
      expect(messages(yield* store.query(ID, { regex: /^warn \d+$/ }))).toEqual(["warn 1", "warn 22"])
      expect(messages(yield* store.query(ID, { regex: /^warn \d\d$/, since: tsOf(4) }))).toEqual(["warn 22"])
      expect(messages(yield* store.query(ID, { raw: true, since: tsOf(4), until: tsOf(6) }))).toEqual([
        "ERROR two",
        "warn 22",
        "red error",
      ])
    }),
  )

  it.scopedLive("tail yields history, then live lines, then a clear control object", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "for i in $(seq 1 15); do echo t$i; done")
      yield* waitForLastId(store, 15)
      const tail = yield* collect(store.tail(ID, { lines: 5 }))
      expect(messages((yield* tail.take(5)) as Array<LogEntry>)).toEqual(["t11", "t12", "t13", "t14", "t15"])
      yield* runWriter(rawPath, "echo t16; echo t17; echo t18")
      const fresh = (yield* tail.take(3)) as Array<LogEntry>
      expect(ids(fresh)).toEqual([16, 17, 18])
      expect(messages(fresh)).toEqual(["t16", "t17", "t18"])

      expect(yield* store.clear(ID)).toBe(1)
      const [control] = yield* tail.take(1)
      expect(control).toEqual({ _clear: true, _gen: 1 } satisfies LogClear)
      expect(fs.statSync(rawPath).size).toBe(0)
      yield* runWriter(rawPath, "echo after 1; echo after 2")
      const after = (yield* tail.take(2)) as Array<LogEntry>
      expect(after.map((e) => [e.id, e.message])).toEqual([
        [19, "after 1"],
        [20, "after 2"],
      ])
      expect(messages(yield* store.query(ID))).toEqual(["after 1", "after 2"])
      expect((yield* store.stats(ID)).gen).toBe(1)
      expect(yield* Queue.size(tail.queue)).toBe(0)
    }),
  )

  it.scopedLive("a follower catching up reads at most 1000 entries per pull, in order", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      // 5,000 short lines: well within one pull's byte budget
      yield* runWriter(rawPath, "seq 1 5000")
      yield* waitForLastId(store, 5000)
      const chunks = yield* store.after(ID, { afterId: 0 }).pipe(
        Stream.chunks,
        Stream.map((c) => [...c] as Array<LogEntry>),
        Stream.take(5),
        Stream.runCollect,
      )
      const sizes = [...chunks].map((c) => c.length)
      expect(sizes).toEqual([1000, 1000, 1000, 1000, 1000])
      expect([...chunks].flat().map((e) => e.message)).toEqual(range(1, 5000).map(String))
    }),
  )

  it.scopedLive("onLines sees only new entries; forget deletes the files and ends tails", () =>
    Effect.gen(function* () {
      const { store, rawPath, dir } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo before")
      yield* waitForLastId(store, 1)
      const lines = yield* collect(store.onLines(ID))
      const tail = yield* collect(store.tail(ID))
      expect(messages((yield* tail.take(1)) as Array<LogEntry>)).toEqual(["before"])
      yield* runWriter(rawPath, "echo one; echo two")
      expect(messages(yield* lines.take(2))).toEqual(["one", "two"])
      const since = yield* collect(store.onLines(ID, { afterId: 0 }))
      expect(messages(yield* since.take(3))).toEqual(["before", "one", "two"])
      yield* store.forget(ID)
      yield* Fiber.join(tail.fiber)
      yield* Fiber.join(lines.fiber)
      yield* Fiber.join(since.fiber)
      expect(fs.readdirSync(dir)).toEqual([])
      expect(yield* store.isFollowing(ID)).toBe(false)
    }),
  )

  it.scopedLive(
    "after yields the entries above an id, then new ones and clear notices; onLines no notices",
    () =>
      Effect.gen(function* () {
        const { store, rawPath } = yield* setup()
        yield* store.follow(ID)
        yield* runWriter(rawPath, "echo a1; echo a2; echo a3")
        yield* waitForLastId(store, 3)
        const after = yield* collect(store.after(ID, { afterId: 1 }))
        const lines = yield* collect(store.onLines(ID))
        expect(messages((yield* after.take(2)) as Array<LogEntry>)).toEqual(["a2", "a3"])
        expect(yield* store.clear(ID)).toBe(1)
        expect(yield* after.take(1)).toEqual([{ _clear: true, _gen: 1 } satisfies LogClear])
        yield* runWriter(rawPath, "echo b1")
        const [next] = (yield* after.take(1)) as Array<LogEntry>
        expect([next?.id, next?.message]).toEqual([4, "b1"])
        // the same clear and line through onLines: the line only
        expect(messages(yield* lines.take(1))).toEqual(["b1"])
        expect(yield* Queue.size(lines.queue)).toBe(0)
      }),
  )

  it.scopedLive("a slow tail consumer still gets every line of a flood", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo 0")
      yield* waitForLastId(store, 1)
      const started = yield* Deferred.make<void>()
      let expected = 0
      let bad = 0
      const fiber = yield* store.tail(ID, { lines: 1 }).pipe(
        Stream.tap((item) =>
          Effect.gen(function* () {
            // entry "i" has id i + 1: the marker "0" came first
            if (isLogClear(item) || item.id !== expected + 1 || item.message !== String(expected)) bad++
            if (expected === 0) yield* Deferred.succeed(started, undefined)
            expected++
            if (expected % 2000 === 0) yield* Effect.sleep("5 millis") // a slow consumer
          }),
        ),
        Stream.takeUntil((item) => !isLogClear(item) && item.id >= 60_001),
        Stream.runDrain,
        Effect.fork,
      )
      yield* Deferred.await(started)
      yield* runWriter(rawPath, "seq 1 60000")
      yield* Fiber.join(fiber)
      expect(bad).toBe(0)
      expect(expected).toBe(60_001)
    }),
  )

  it.scopedLive("a 300k-line flood is indexed exactly once with contiguous ids", () =>
    Effect.gen(function* () {
      const { store, rawPath, indexPath } = yield* setup()
      yield* store.follow(ID)
      yield* runWriter(rawPath, "seq 1 300000")
      yield* waitForLastId(store, 300_000)
      const { records, end, nextId } = checkTiling(indexPath)
      expect(end).toBe(fs.statSync(rawPath).size)
      expect(nextId).toBe(300_001)
      // chunked reads: a record a read, not a line, and each at most one 64 KiB read with the
      // start of a line the read before ended in (how many reads a flood takes depends on how the
      // writer and the follower take turns: ~35-480 here)
      expect(records.length).toBeLessThan(300_000 / 100)
      expect(Math.max(...records.map((r) => r.end - r.off))).toBeLessThanOrEqual(
        64 * 1024 + "300000\n".length,
      )
      const all = yield* store.query(ID)
      expect(all.length).toBe(300_000)
      expect(all.every((e, i) => e.id === i + 1 && e.message === String(i + 1))).toBe(true)
      expect(messages(yield* store.query(ID, { lines: 3 }))).toEqual(["299998", "299999", "300000"])
    }),
  )

  it.scopedLive("splits lines longer than the limit, on UTF-8 boundaries", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      const long = "x".repeat(150_000)
      const euros = "€".repeat(30_000) // 90,000 bytes
      fs.writeFileSync(nodePath.join(nodePath.dirname(rawPath), "input"), `${long}\n${euros}\nshort\n`)
      yield* runWriter(rawPath, `cat ${nodePath.join(nodePath.dirname(rawPath), "input")}`)
      yield* waitForLastId(store, 6)
      const all = messages(yield* store.query(ID))
      expect(all.map((m) => Buffer.byteLength(m))).toEqual([
        65_536,
        65_536,
        150_000 - 2 * 65_536,
        65_535,
        24_465,
        5,
      ])
      expect(all.slice(0, 3).join("")).toBe(long)
      expect(all.slice(3, 5).join("")).toBe(euros)
      expect(all[5]).toBe("short")
    }),
  )

  it.scopedLive("flushes a partial last line once the file stops growing", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup({ partialLineFlush: "300 millis" })
      yield* store.follow(ID)
      yield* runWriter(rawPath, "printf 'first\\nno newline'")
      yield* waitForLastId(store, 2)
      yield* runWriter(rawPath, "printf ' then more\\n'")
      yield* waitForLastId(store, 3)
      expect(messages(yield* store.query(ID))).toEqual(["first", "no newline", " then more"])
    }),
  )

  it.scopedLive("retention archives the oldest half and keeps the newest entries", () =>
    Effect.gen(function* () {
      const maxBytes = 64 * 1024
      const { store, rawPath, indexPath } = yield* setup({ maxBytes })
      yield* store.follow(ID)
      yield* runWriter(rawPath, "seq 1 40000") // 228,894 bytes
      // retention runs right after a record is appended: wait for the store to settle
      yield* waitUntil(
        "everything is indexed and retention is done",
        Effect.map(store.stats(ID), (s) => s.lastId >= 40_000 && s.endOffset - s.startOffset <= maxBytes),
      )
      const stats = yield* store.stats(ID)
      expect(stats.firstId).toBeGreaterThan(1)
      const kept = yield* store.query(ID)
      expect(ids(kept)).toEqual(range(stats.firstId, 40_000))
      expect(kept.every((e) => e.message === String(e.id))).toBe(true)
      // the archive holds the entries released last, right before the first kept one
      const archived = fs.readFileSync(`${rawPath}.1`, "latin1").split("\n")
      expect(archived.pop()).toBe("")
      expect(archived[archived.length - 1]).toBe(String(stats.firstId - 1))
      // offsets stay valid; the released head is a hole of zeros
      const st = fs.statSync(rawPath)
      expect(st.size).toBe(228_894)
      const head = Buffer.alloc(16)
      const fd = fs.openSync(rawPath, "r")
      fs.readSync(fd, head, 0, 16, 0)
      fs.closeSync(fd)
      expect(head.every((b) => b === 0)).toBe(true)
      expect(st.blocks * 512).toBeLessThan(st.size)
      const { header } = checkTiling(indexPath)
      expect(header.off).toBe(stats.startOffset)
    }),
  )

  it.scopedLive("a tail that fell behind retention continues with the oldest entry still stored", () =>
    Effect.gen(function* () {
      const maxBytes = 16 * 1024
      // small reads: after each release what is left is at most maxBytes, so "settled" is observable
      const { store, rawPath } = yield* setup({ maxBytes, chunkBytes: 4096 })
      yield* store.follow(ID)
      yield* runWriter(rawPath, "echo 0")
      yield* waitForLastId(store, 1)
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const received: Array<LogEntry | LogClear> = []
      const fiber = yield* store.tail(ID, { lines: 1 }).pipe(
        Stream.tap((item) =>
          Effect.gen(function* () {
            received.push(item)
            if (received.length === 1) {
              yield* Deferred.succeed(started, undefined)
              yield* Deferred.await(gate) // a consumer that stalls while the daemon floods
            }
          }),
        ),
        Stream.takeUntil((item) => !isLogClear(item) && item.id >= 100_001),
        Stream.runDrain,
        Effect.fork,
      )
      yield* Deferred.await(started)
      yield* runWriter(rawPath, "seq 1 100000")
      yield* waitUntil(
        "everything is indexed and retention is done",
        Effect.map(store.stats(ID), (s) => s.lastId >= 100_001 && s.endOffset - s.startOffset <= maxBytes),
      )
      const { firstId } = yield* store.stats(ID)
      expect(firstId).toBeGreaterThan(90_000)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      const entries = received as Array<LogEntry>
      expect(ids(entries)).toEqual([1, ...range(firstId, 100_001)])
      expect(entries.every((e) => e.message === String(e.id - 1))).toBe(true)
    }),
  )

  it.scopedLive("without fallocate, retention keeps the raw file whole", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup({ maxBytes: 8192, fallocate: "/nonexistent/fallocate" })
      yield* store.follow(ID)
      yield* runWriter(rawPath, "seq 1 10000")
      yield* runWriter(rawPath, "seq 10001 20000")
      // one release happens before the failure is known
      yield* waitUntil(
        "retention ran once",
        Effect.map(store.stats(ID), (s) => s.lastId >= 20_000 && s.firstId > 1),
      )
      const { firstId } = yield* store.stats(ID)
      yield* runWriter(rawPath, "seq 20001 30000")
      yield* waitForLastId(store, 30_000)
      // after it, nothing more is dropped and the raw file keeps its bytes
      const stats = yield* store.stats(ID)
      expect(stats.firstId).toBe(firstId)
      expect(ids(yield* store.query(ID))).toEqual(range(firstId, 30_000))
      expect(fs.readFileSync(rawPath, "latin1").slice(0, 4)).toBe("1\n2\n")
    }),
  )

  it.scopedLive("pages: the last N entries (or all) in id order, batch by batch, as query gives them", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* store.follow(ID)
      // ~490 KiB of output: more than one 256 KiB page
      yield* runWriter(rawPath, "seq 1 80000 | sed 's/^/line /'")
      yield* waitForLastId(store, 80_000)
      const batches = (lines?: number) =>
        Stream.runCollect(store.pages(ID, lines === undefined ? {} : { lines })).pipe(
          Effect.map((c) => [...c]),
        )
      const all = yield* batches()
      expect(all.length).toBeGreaterThan(1)
      expect(all.flat()).toEqual(yield* store.query(ID))
      const last = yield* batches(12_345)
      expect(last.flat()).toEqual(yield* store.query(ID, { lines: 12_345 }))
      expect(ids(last.flat())).toEqual(range(80_000 - 12_345 + 1, 80_000))
      expect(yield* batches(0)).toEqual([])
      expect((yield* batches(1_000_000)).flat().length).toBe(80_000) // more than stored: all
      // it ends at the last entry stored when it started, even if more come meanwhile
      const pulled: Array<ReadonlyArray<LogEntry>> = []
      yield* store.pages(ID, { lines: 100_000 }).pipe(
        Stream.runForEach((page) =>
          Effect.gen(function* () {
            if (pulled.length === 0) {
              yield* runWriter(rawPath, "echo later")
              yield* waitForLastId(store, 80_001)
            }
            pulled.push(page)
          }),
        ),
      )
      expect(pulled.flat().at(-1)?.id).toBe(80_000)
      // a cleared log: nothing; an unknown daemon: the stream fails
      yield* store.clear(ID)
      expect(yield* batches()).toEqual([])
      expect(Either.isLeft(yield* Effect.either(Stream.runCollect(store.pages("web"))))).toBe(true)
    }),
  )

  it.effect("rejects an ID that is not qualified", () =>
    Effect.gen(function* () {
      const store = yield* Effect.scoped(withFakeStorageHealth(makeLogStore({ dir: "/nonexistent" })))
      const r = yield* Effect.either(store.query("web"))
      expect(Either.isLeft(r) && r.left._tag === "LogStoreError").toBe(true)
    }),
  )

  it.scopedLive(
    "clear without a follower starts a new generation and later following continues the ids",
    () =>
      Effect.gen(function* () {
        const { store, rawPath } = yield* setup()
        yield* store.follow(ID)
        yield* runWriter(rawPath, "echo a; echo b")
        yield* waitForLastId(store, 2)
        yield* store.unfollow(ID)
        expect(yield* store.clear(ID)).toBe(1)
        expect(yield* store.query(ID)).toEqual([])
        yield* runWriter(rawPath, "echo c")
        yield* store.follow(ID)
        yield* waitForLastId(store, 3)
        const all = yield* store.query(ID)
        expect(all.map((e) => [e.id, e.message])).toEqual([[3, "c"]])
      }),
  )

  it.scopedLive(
    "follow opens the files once however often it is asked; unfollow and the store's end close them",
    () =>
      Effect.gen(function* () {
        const { store, rawPath, indexPath } = yield* setup()
        // which of our fds point at this daemon's log files
        const openLogFds = () =>
          fs.readdirSync("/proc/self/fd").filter((fd) => {
            try {
              const target = fs.readlinkSync(`/proc/self/fd/${fd}`)
              return target === rawPath || target === indexPath
            } catch {
              return false // the directory's own fd, gone by now
            }
          }).length
        expect(openLogFds()).toBe(0)
        yield* Effect.all([store.follow(ID), store.follow(ID), store.follow(ID)], {
          concurrency: "unbounded",
        })
        expect(openLogFds()).toBe(2) // the raw file (read) and the index (append)
        yield* runWriter(rawPath, "echo one")
        yield* waitForLastId(store, 1)
        yield* store.unfollow(ID)
        expect(yield* store.isFollowing(ID)).toBe(false)
        expect(openLogFds()).toBe(0)
        yield* store.follow(ID)
        expect(openLogFds()).toBe(2)
        const inner = yield* Effect.scoped(
          Effect.gen(function* () {
            const other = yield* withFakeStorageHealth(makeLogStore({ dir: nodePath.dirname(rawPath) }))
            yield* other.follow("proj/other")
            return other
          }),
        )
        // a store whose scope closed has stopped its followers
        expect(yield* inner.isFollowing("proj/other")).toBe(false)
      }),
  )

  it.scopedLive("a followed daemon that prints nothing has no index file; its first line makes one", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = Context.get(
        yield* Layer.build(LogStore.layer({ dir }).pipe(Layer.provide(StorageHealthFake))),
        LogStore,
      )
      const indexPath = nodePath.join(dir, "proj--web.idx")
      yield* store.follow(ID)
      const { rawPath } = yield* store.prepare(ID)
      expect(fs.existsSync(rawPath)).toBe(true)
      expect(fs.existsSync(indexPath)).toBe(false)
      expect(yield* store.stats(ID)).toEqual({ gen: 0, firstId: 1, lastId: 0, startOffset: 0, endOffset: 0 })
      expect(yield* store.query(ID)).toEqual([])
      yield* runWriter(rawPath, "echo first; echo second")
      yield* waitForLastId(store, 2)
      expect(messages(yield* store.query(ID))).toEqual(["first", "second"])
      // the file a new follower (or a restarted supervisor) reads back
      yield* store.unfollow(ID)
      expect(readIndex(indexPath).header).toEqual({ gen: 0, next: 1, off: 0, ts: 0 })
      expect(yield* store.stats(ID)).toMatchObject({ firstId: 1, lastId: 2 })
    }),
  )
})
