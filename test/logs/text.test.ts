/**
 * `LogStore.text`: the stored entries as the text `supervisor logs` prints, byte for byte the
 * messages `query` gives (one per line, with or without timestamps, ANSI stripped with `raw`),
 * for output that passes through as read and for output that has to be rendered line by line.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Either, Layer, Stream } from "effect"
import { LogStore, type LogStoreOptions } from "../../src/logs/LogStore.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"
import { range, runWriter, tempDir, waitUntil } from "./helpers.js"

const ID = "proj/web"

const setup = (options: Omit<LogStoreOptions, "dir"> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const store = Context.get(
      yield* Layer.build(LogStore.layer({ dir, ...options }).pipe(Layer.provide(StorageHealthFake))),
      LogStore,
    )
    const { rawPath } = yield* store.prepare(ID)
    yield* store.follow(ID)
    return { store, rawPath }
  })

type Store = Context.Tag.Service<LogStore>
type Options = { readonly lines?: number; readonly raw?: boolean; readonly timestamps?: boolean }

const waitForLastId = (store: Store, lastId: number) =>
  waitUntil(
    `${ID} has indexed id ${lastId}`,
    Effect.map(store.stats(ID), (s) => s.lastId >= lastId),
  )

/** What `text` gives, as one buffer, and in how many parts. */
const text = (store: Store, options: Options) =>
  Effect.map(Stream.runCollect(store.text(ID, options)), (c) => {
    const parts = Chunk.toReadonlyArray(c)
    return { bytes: Buffer.concat(parts), parts: parts.length }
  })

/** The same selection through `query`, printed as the CLI prints entries. */
const expected = (store: Store, options: Options) =>
  Effect.map(
    store.query(ID, {
      ...(options.lines !== undefined && { lines: options.lines }),
      ...(options.raw !== undefined && { raw: options.raw }),
    }),
    (entries) =>
      Buffer.from(
        entries.map((e) => `${options.timestamps ? `${e.timestamp} ` : ""}${e.message}\n`).join(""),
      ),
  )

/** A deterministic stream of awkward output: colours, CRLF, bad UTF-8, long and multi-byte lines. */
const awkwardOutput = (lines: number, seed = 7): Buffer => {
  let state = seed
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state % n
  }
  const short: ReadonlyArray<Buffer> = [
    Buffer.from("plain words"),
    Buffer.from("\x1b[31mred\x1b[0m and \x1b]0;a title\x07"),
    Buffer.from("ends with CR\r"),
    Buffer.from([0x66, 0xff, 0xfe, 0x6f, 0xc3]), // invalid UTF-8, a lone lead byte last
    Buffer.from("é€😀"),
    Buffer.from("\u009b31mC1 CSI\u009b0m"),
    Buffer.from("an OSC across lines \x1b]0;one"), // its end comes on a later line
    Buffer.alloc(0),
  ]
  // lines longer than maxLine (100 bytes), split into pieces; rare, so that most records hold
  // only short lines (which may pass through as read)
  const long = () =>
    next(2) === 0 ? Buffer.from("é€😀".repeat(12 + next(60))) : Buffer.from("x".repeat(101 + next(300)))
  const out: Array<Buffer> = []
  for (let i = 0; i < lines; i++) {
    // runs of plain lines, and runs of one kind of awkward line
    const kind = Math.floor(i / 40) % (short.length + 1)
    out.push(kind === short.length ? Buffer.from("plain") : short[kind]!, Buffer.from(` ${i}`))
    if (next(8) === 0) out.push(short[next(short.length)]!)
    if (next(60) === 0) out.push(long())
    out.push(Buffer.from("\n"))
  }
  return Buffer.concat(out)
}

const combinations: ReadonlyArray<Options> = [
  {},
  { raw: true },
  { timestamps: true },
  { raw: true, timestamps: true },
]

describe("LogStore.text", () => {
  it.scopedLive("plain output: every line once, in order, in large parts; the last N; timestamps", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* runWriter(rawPath, "seq 1 300000")
      yield* waitForLastId(store, 300_000)
      const all = yield* text(store, { raw: true })
      expect(all.bytes.equals(Buffer.from(`${range(1, 300_000).join("\n")}\n`))).toBe(true)
      expect(all.parts).toBeGreaterThan(1) // ~2 MiB: more than one page
      expect(all.parts).toBeLessThan(20) // and not a part per line
      for (const lines of [0, 1, 65_536, 299_999, 300_000, 1_000_000]) {
        const last = yield* text(store, { lines })
        const from = Math.max(1, 300_000 - lines + 1)
        expect(last.bytes.toString()).toBe(lines === 0 ? "" : `${range(from, 300_000).join("\n")}\n`)
      }
      for (const options of combinations)
        for (const lines of [undefined, 3, 123_457]) {
          const o = { ...options, ...(lines !== undefined && { lines }) }
          expect((yield* text(store, o)).bytes.equals(yield* expected(store, o)), JSON.stringify(o)).toBe(
            true,
          )
        }
    }),
  )

  it.scopedLive("awkward output comes out exactly as query's messages, whatever the options", () =>
    Effect.gen(function* () {
      // small reads and a small line limit: lines split into pieces and records of every shape
      const { store, rawPath } = yield* setup({
        chunkBytes: 1024,
        maxLineBytes: 100,
        partialLineFlush: "50 millis",
      })
      const output = awkwardOutput(3000)
      // in uneven writes, the last one a line without its newline (flushed as an entry of its own)
      for (let off = 0, step = 1; off < output.length; off += step, step = (step * 7 + 3) % 5000)
        fs.appendFileSync(rawPath, output.subarray(off, off + step))
      fs.appendFileSync(rawPath, "no newline at the end \x1b[1m")
      yield* waitUntil(
        "the partial last line is flushed",
        Effect.map(store.query(ID, { lines: 1 }), (es) => es[0]?.message === "no newline at the end \x1b[1m"),
      )
      const stored = (yield* store.stats(ID)).lastId
      expect(stored).toBeGreaterThan(3000) // long lines were split
      for (const options of combinations)
        for (const lines of [undefined, 1, 2, 77, 1501, stored - 1, stored + 5]) {
          const o = { ...options, ...(lines !== undefined && { lines }) }
          const got = (yield* text(store, o)).bytes
          const want = yield* expected(store, o)
          expect(got.equals(want), JSON.stringify(o)).toBe(true)
        }
    }),
  )

  it.scopedLive("ends at the last entry stored when it started; a cleared log gives nothing", () =>
    Effect.gen(function* () {
      const { store, rawPath } = yield* setup()
      yield* runWriter(rawPath, "seq 1 200000")
      yield* waitForLastId(store, 200_000)
      let first = true
      const got: Array<Uint8Array> = []
      yield* store.text(ID).pipe(
        Stream.runForEach((part) =>
          Effect.gen(function* () {
            if (first) {
              first = false
              yield* runWriter(rawPath, "echo later")
              yield* waitForLastId(store, 200_001)
            }
            got.push(part)
          }),
        ),
      )
      expect(Buffer.concat(got).toString()).toBe(`${range(1, 200_000).join("\n")}\n`)
      yield* store.clear(ID)
      expect((yield* text(store, {})).bytes.length).toBe(0)
      const unqualified = yield* Effect.either(Stream.runCollect(store.text("web")))
      expect(Either.isLeft(unqualified)).toBe(true)
    }),
  )
})
