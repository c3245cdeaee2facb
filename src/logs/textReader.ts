import type { Effect } from "effect"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import { lastId } from "./indexFile.js"
import { FORWARD_GROUP_BYTES, groupEndForward, type ReadContext, withRecordsAfter } from "./reader.js"
import { renderRecords, type TextOptions } from "./textRender.js"

/** The text of the entries after a cursor (src/logs/textRender.ts), from one snapshot of the index. */
export interface TextBatch {
  readonly gen: number
  readonly parts: ReadonlyArray<Uint8Array>
  /** The last id the parts cover (the cursor itself when there was nothing after it). */
  readonly last: number
}

/**
 * The entries with an id above `cursor` and at most `upTo` as text, from whole records spanning
 * about `budget` raw bytes, read in groups of up to 1 MiB. Stops early where the raw file is
 * shorter than the index says (rewritten meanwhile: the caller's epoch check reads again).
 */
export const readTextAfter = (
  ctx: ReadContext,
  cursor: number,
  budget: number,
  upTo: number,
  options: TextOptions,
): Effect.Effect<TextBatch, LogStoreError> =>
  fsio.attempt(() =>
    withRecordsAfter(ctx, cursor, budget, upTo, (records, rawFd, gen) => {
      const parts: Array<Uint8Array> = []
      let last = cursor
      for (let i = 0; rawFd !== undefined && i < records.length; ) {
        const j = groupEndForward(records, i, FORWARD_GROUP_BYTES)
        const first = records[i]!
        const end = records[j - 1]!
        const buf = fsio.readRangeSync(rawFd, first.off, end.end - first.off, ctx.rawPath)
        const group = renderRecords(buf, first.off, records.slice(i, j), last, upTo, ctx.maxLine, options)
        parts.push(...group.parts)
        last = group.last
        if (last < Math.min(lastId(end), upTo)) break // cut short: nothing after a gap
        i = j
      }
      return { gen, parts, last }
    }),
  )
