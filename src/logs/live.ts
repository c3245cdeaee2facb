// What readers of a daemon's log share: a lock-free read made consistent with rewrites (clear,
// retention), and the live part of a tail, pulled from the index whenever the follower signals.
import { Chunk, Effect, Option, Queue, Stream } from "effect"
import type { LogClear, LogEntry } from "../domain/LogEntry.js"
import type { DaemonLog } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import { type Batch, readAfter } from "./reader.js"

/** Runs a lock-free read again when a clear or retention rewrote the files meanwhile. */
export const consistent = <A>(
  d: DaemonLog,
  read: Effect.Effect<A, LogStoreError>,
): Effect.Effect<A, LogStoreError> =>
  Effect.gen(function* () {
    for (let attempt = 0; ; attempt++) {
      const before = d.epoch
      if (before % 2 === 1) {
        yield* d.mutex.awaitFree // the rewrite holds the mutex: wait it out
        continue
      }
      const result = yield* read
      if (d.epoch === before || attempt >= 20) return result
    }
  })

/**
 * At most this many entries per pull: a batch of short lines stays small enough to die in V8's
 * young generation instead of being promoted (a flood read by many tails grew the heap by GiBs).
 */
const BATCH_ENTRIES = 1000

/**
 * Entries after `start`, pulled from the index whenever the follower signals (`sub`), about
 * `batchBytes` of output per pull. The end is a flag checked per pull rather than
 * `Stream.interruptWhen`, which races every pull against the signal: costly for a tail of a
 * chatty daemon, which pulls once per line.
 */
export const live = (
  d: DaemonLog,
  sub: Queue.Dequeue<void>,
  start: Batch,
  withClears: boolean,
  batchBytes: number,
): Stream.Stream<LogEntry | LogClear, LogStoreError> => {
  let gen = start.gen
  let cursor = start.lastId
  const pull = Effect.gen(function* () {
    for (;;) {
      if (d.closed) return yield* Effect.fail(Option.none()) // forgotten, or the store closed: end
      const b = yield* consistent(d, readAfter(d.ctx, cursor, batchBytes, BATCH_ENTRIES)).pipe(
        Effect.mapError(Option.some),
      )
      const out: Array<LogEntry | LogClear> = []
      if (b.gen !== gen || b.lastId < cursor) {
        // cleared (or the index was replaced behind our back: ids restarted)
        if (withClears) out.push({ _clear: true, _gen: b.gen })
        gen = b.gen
        if (b.lastId < cursor) {
          cursor = 0
          if (out.length > 0) return Chunk.unsafeFromArray(out)
          continue
        }
      }
      for (const e of b.entries) out.push(e)
      const last = b.entries[b.entries.length - 1]
      // records past the cursor that yield no entry (damaged raw bytes) must not stall the tail
      if (last !== undefined) cursor = last.id
      else if (b.lastId > cursor) cursor = b.lastId
      if (out.length > 0) return Chunk.unsafeFromArray(out)
      yield* Queue.take(sub)
    }
  })
  return Stream.repeatEffectChunkOption(pull)
}
