import { Chunk, Effect, Option, Stream } from "effect"
import type { LogStoreError } from "./errors.js"
import type { LogStats } from "./reader.js"

/** One page read after a cursor: its items, the generation it was read in, the last id it covers. */
export interface Page<A> {
  readonly gen: number
  readonly items: ReadonlyArray<A>
  readonly last: number
}

/**
 * The last `lines` entries stored when the stream starts (all of them without `lines`), page by
 * page: `read(cursor, upTo)` gives the page after `cursor`, up to `upTo`. Ids are consecutive
 * within a generation, so the last N are the ones after `lastId - N`. It ends at the last entry
 * stored at the start, or early when the log is cleared (another generation) or a page makes
 * no progress.
 */
export const pagesAfter = <A>(
  stats: Effect.Effect<LogStats, LogStoreError>,
  lines: number | undefined,
  read: (cursor: number, upTo: number) => Effect.Effect<Page<A>, LogStoreError>,
): Stream.Stream<A, LogStoreError> =>
  Stream.unwrap(
    Effect.map(stats, ({ gen, firstId, lastId }) => {
      const want = lines === undefined ? lastId : Math.max(0, Math.floor(lines))
      let cursor = Math.max(firstId - 1, lastId - want)
      const pull = Effect.gen(function* () {
        if (cursor >= lastId) return yield* Effect.fail(Option.none())
        const page = yield* read(cursor, lastId).pipe(Effect.mapError(Option.some))
        if (page.gen !== gen || page.last <= cursor) return yield* Effect.fail(Option.none())
        cursor = page.last
        return Chunk.unsafeFromArray(page.items)
      })
      return Stream.repeatEffectChunkOption(pull)
    }),
  )
