import * as nodePath from "node:path"
import { Effect, PubSub, Ref, Stream } from "effect"
import type { LogEntry } from "../domain/LogEntry.js"
import type { LogStoreShape } from "../logs/LogStoreShape.js"
import { makeMatcher } from "../logs/reader.js"
import { supervisorLineBytes } from "../logs/supervisorLine.js"

/** A log store of the test's own: no file is written; lines exist when the test emits them. */
export interface MemoryLogStore {
  readonly store: LogStoreShape
  /** Appends an output line of a daemon, as its log follower would have indexed it. */
  readonly emit: (id: string, line: string) => Effect.Effect<void>
  /** The daemons whose logs were forgotten (`clean`), in order. */
  readonly forgotten: Effect.Effect<ReadonlyArray<string>>
}

export interface MemoryLogStoreOptions {
  /** Where the (never written) files would be. */
  readonly dir: string
  /**
   * Called at the start of every `prepare` (1-based call number): lets a test hold a daemon's
   * lifecycle inside its spawn step.
   */
  readonly beforePrepare?: (call: number, id: string) => Effect.Effect<void>
}

const timestamp = "2026-01-01 00:00:00"
const utf8 = new TextEncoder()

export const makeMemoryLogStore = (options: MemoryLogStoreOptions) =>
  Effect.gen(function* () {
    const lines = yield* Ref.make<Record<string, ReadonlyArray<LogEntry>>>({})
    const emitted = yield* PubSub.unbounded<LogEntry>()
    const prepareCalls = yield* Ref.make(0)
    const forgotten = yield* Ref.make<ReadonlyArray<string>>([])
    const own = (id: string) => Ref.get(lines).pipe(Effect.map((all) => all[id] ?? []))
    const base = (id: string) => nodePath.join(options.dir, id.replace("/", "--"))

    const emit = (id: string, message: string) =>
      Ref.modify(lines, (all) => {
        const before = all[id] ?? []
        const entry: LogEntry = { id: before.length + 1, timestamp, daemon_id: id, message }
        return [entry, { ...all, [id]: [...before, entry] }] as const
      }).pipe(
        Effect.flatMap((e) => PubSub.publish(emitted, e)),
        Effect.asVoid,
      )

    const store: LogStoreShape = {
      dir: options.dir,
      paths: (id) =>
        Effect.succeed({
          rawPath: `${base(id)}.out`,
          indexPath: `${base(id)}.idx`,
          archivePath: `${base(id)}.out.1`,
          fieldsPath: `${base(id)}.fields`,
        }),
      prepare: (id) =>
        Effect.gen(function* () {
          const call = yield* Ref.updateAndGet(prepareCalls, (n) => n + 1)
          if (options.beforePrepare) yield* options.beforePrepare(call, id)
          // No file is ever written: the supervisor finds no raw output to wait for.
          return { rawPath: `${base(id)}.out`, size: 0 }
        }),
      follow: () => Effect.void,
      unfollow: () => Effect.void,
      retire: () => Effect.void,
      isFollowing: () => Effect.succeed(false),
      forget: (id) =>
        Ref.update(forgotten, (ids) => [...ids, id]).pipe(
          Effect.zipRight(
            Ref.update(lines, (all) => {
              const { [id]: _, ...rest } = all
              return rest
            }),
          ),
        ),
      query: (id, q = {}) =>
        own(id).pipe(
          Effect.map((entries) => {
            const match = makeMatcher(q)
            const out: Array<LogEntry> = []
            for (const e of entries) {
              const message = match(e.message)
              if (message !== undefined) out.push({ ...e, message })
            }
            return q.lines === undefined ? out : out.slice(Math.max(0, out.length - q.lines))
          }),
        ),
      pages: (id, o = {}) =>
        Stream.fromEffect(own(id)).pipe(
          Stream.map((entries) => (o.lines === undefined ? entries : entries.slice(-o.lines))),
        ),
      text: (id, o = {}) =>
        store.query(id, { ...(o.lines === undefined ? {} : { lines: o.lines }), raw: o.raw === true }).pipe(
          Effect.map((entries) =>
            utf8.encode(
              entries.map((e) => `${o.timestamps ? `${e.timestamp} ` : ""}${e.message}\n`).join(""),
            ),
          ),
          Stream.fromEffect,
        ),
      tail: (id, o = {}) =>
        store.pages(id, o).pipe(Stream.flattenIterables, Stream.concat(store.onLines(id))),
      // Entries after `afterId` already stored, then the live ones (subscribed first: none is missed).
      onLines: (id, { afterId } = {}) =>
        Stream.unwrapScoped(
          Effect.gen(function* () {
            const sub = yield* PubSub.subscribe(emitted)
            const stored = yield* own(id)
            const from = afterId ?? stored.length
            const seen = stored.length
            return Stream.fromIterable(stored.filter((e) => e.id > from)).pipe(
              Stream.concat(
                Stream.fromQueue(sub).pipe(Stream.filter((e) => e.daemon_id === id && e.id > seen)),
              ),
            )
          }),
        ),
      after: (id, { afterId }) => store.onLines(id, { afterId }),
      note: (id, text) => emit(id, supervisorLineBytes(text, false).slice(0, -1)),
      clear: (id) =>
        own(id).pipe(
          Effect.tap(() => Ref.update(lines, (all) => ({ ...all, [id]: [] }))),
          Effect.map((entries) => entries.length),
        ),
      // count-based only: the test's entries have no time of their own
      pruneCut: (id, limits) =>
        own(id).pipe(
          Effect.map((entries) => {
            const firstId = entries[0]?.id ?? 1
            const last = entries.at(-1)?.id ?? 0
            const upTo = limits.lines === undefined ? firstId - 1 : last - limits.lines
            return { gen: 1, firstId, upTo, ageUpTo: firstId - 1 }
          }),
        ),
      range: (id, { after, upTo }) =>
        Stream.fromEffect(own(id)).pipe(Stream.map((es) => es.filter((e) => e.id > after && e.id <= upTo))),
      release: (id, { upTo }) =>
        Ref.modify(lines, (all) => {
          const before = all[id] ?? []
          const kept = before.filter((e) => e.id > upTo)
          return [before.length - kept.length, { ...all, [id]: kept }] as const
        }),
      stats: (id) =>
        own(id).pipe(
          Effect.map((entries) => {
            const n = entries.length
            return { gen: 1, firstId: 1, lastId: n, startOffset: 0, endOffset: 0 }
          }),
        ),
    }
    return { store, emit, forgotten: Ref.get(forgotten) } satisfies MemoryLogStore
  })
