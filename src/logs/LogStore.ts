import * as nodePath from "node:path"
import { Clock, Context, Duration, Effect, Either, FiberMap, Layer, PubSub, type Scope, Stream } from "effect"
import { parseDaemonRef } from "../domain/DaemonId.js"
import type { LogClear, LogEntry } from "../domain/LogEntry.js"
import { StorageHealth } from "../state/StorageHealth.js"
import type { DaemonLog, LogPaths } from "./daemonLog.js"
import { drainFollower } from "./drain.js"
import { LogStoreError } from "./errors.js"
import {
  type FollowerConfig,
  markBoundary,
  openFollower,
  type RetentionState,
  rewriting,
  startGeneration,
} from "./follower.js"
import * as fsio from "./fsio.js"
import { repairIndexSync } from "./indexWrite.js"
import { LogStoreDefaults, type LogStoreOptions, type LogStoreShape } from "./LogStoreShape.js"
import { consistent, live } from "./live.js"
import { makeLogMutex } from "./mutex.js"
import { pagesAfter } from "./pages.js"
import { pruneCut, releaseUpTo } from "./prune.js"
import { followerStats, readAfter, readStats, readStatsSync, runQuery } from "./reader.js"
import { supervisedFollower } from "./supervised.js"
import { appendSupervisorLineCounted } from "./supervisorLine.js"
import { readTextAfter } from "./textReader.js"

export type { LogPaths } from "./daemonLog.js"
export { LogStoreError } from "./errors.js"
export {
  type FollowOptions,
  LogStoreDefaults,
  type LogStoreOptions,
  type LogStoreShape,
  type PreparedRun,
} from "./LogStoreShape.js"
export type { PruneCut, PruneLimits } from "./prune.js"
export type { LogQuery, LogStats } from "./reader.js"
export type { TextOptions } from "./textRender.js"

const positive = (value: number | undefined, fallback: number, min = 1) =>
  value === undefined || !Number.isFinite(value) ? fallback : Math.max(min, Math.floor(value))

/** Raw bytes per batch of `pages`, and per page of `text` (which makes no object per entry). */
const PAGE_BYTES = 256 * 1024
const TEXT_PAGE_BYTES = 1024 * 1024

/** Builds the store; its followers and tails end when the scope closes. */
export const makeLogStore = (
  options: LogStoreOptions,
): Effect.Effect<LogStoreShape, never, Scope.Scope | StorageHealth> =>
  Effect.gen(function* () {
    const health = yield* StorageHealth
    const dir = nodePath.resolve(options.dir)
    const cfg: FollowerConfig = {
      chunkBytes: positive(options.chunkBytes, LogStoreDefaults.chunkBytes, 1024),
      maxLineBytes: positive(options.maxLineBytes, LogStoreDefaults.maxLineBytes, 16),
      pollMillis: Duration.toMillis(options.pollInterval ?? LogStoreDefaults.pollInterval),
      flushAfterMillis: Duration.toMillis(options.partialLineFlush ?? LogStoreDefaults.partialLineFlush),
      maxBytes: positive(options.maxBytes, LogStoreDefaults.maxBytes, 4096),
      fallocate: options.fallocate ?? LogStoreDefaults.fallocate,
    }
    const tailBatchBytes = positive(options.tailBatchBytes, LogStoreDefaults.tailBatchBytes)
    const retention: RetentionState = { punchDisabled: false }

    // The follower fiber of each followed daemon, by key; interrupted when the store closes.
    const followers = yield* FiberMap.make<string, never, never>()
    const daemons = new Map<string, DaemonLog>()
    let open = true
    // open tails end before the followers stop
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        open = false
        return Effect.forEach(daemons.values(), (d) => close(d), { discard: true })
      }).pipe(Effect.zipRight(FiberMap.clear(followers))),
    )

    const registry = yield* Effect.makeSemaphore(1)

    // The same IDs come back for every operation (five per start): parsed once each.
    const byId = new Map<string, DaemonLog>()
    const daemon = (id: string): Effect.Effect<DaemonLog, LogStoreError> => {
      const known = byId.get(id)
      return known !== undefined ? Effect.succeed(known) : lookUp(id)
    }
    const lookUp = (id: string): Effect.Effect<DaemonLog, LogStoreError> =>
      Either.match(parseDaemonRef(id), {
        onLeft: (message) =>
          Effect.fail(new LogStoreError({ message: `log of ${JSON.stringify(id)}: ${message}` })),
        onRight: (parsed) =>
          registry.withPermits(1)(
            Effect.gen(function* () {
              const key = parsed.safePath
              const known = daemons.get(key)
              if (known !== undefined) {
                byId.set(id, known)
                return known
              }
              const base = nodePath.join(dir, key)
              const paths: LogPaths = {
                rawPath: `${base}.out`,
                indexPath: `${base}.idx`,
                archivePath: `${base}.out.1`,
                fieldsPath: `${base}.fields`,
              }
              const d: DaemonLog = {
                id: parsed.qualified,
                key,
                paths,
                ctx: { daemonId: parsed.qualified, ...paths, maxLine: cfg.maxLineBytes },
                mutex: makeLogMutex(),
                health,
                changed: yield* PubSub.sliding<void>(1),
                closed: !open,
                epoch: 0,
                format: "text",
                pendingLateEnd: undefined,
                follower: undefined,
              }
              daemons.set(key, d)
              byId.set(id, d)
              return d
            }),
          ),
      })

    /** Interrupts the daemon's follower, if any, and waits until its files are closed. */
    const stopFollowing = (d: DaemonLog) => FiberMap.remove(followers, d.key)

    /** Ends the daemon's tails: they see the flag when the signal wakes them. */
    const close = (d: DaemonLog) =>
      Effect.suspend(() => {
        d.closed = true
        return PubSub.publish(d.changed, undefined)
      })

    /** Entries above `afterId` (default: the last stored now), then the new ones, forever. */
    const liveAfter = (id: string, afterId: number | undefined, withClears: boolean) =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const d = yield* daemon(id)
          const sub = yield* PubSub.subscribe(d.changed) // before reading: no signal is missed
          const now = yield* consistent(d, runQuery(d.ctx, { lines: 0 }))
          return live(
            d,
            sub,
            afterId === undefined ? now : { ...now, lastId: afterId },
            withClears,
            tailBatchBytes,
          )
        }),
      )

    const service: LogStoreShape = {
      dir,
      paths: (id) => Effect.map(daemon(id), (d) => d.paths),

      prepare: (id) =>
        Effect.gen(function* () {
          const d = yield* daemon(id)
          const now = yield* Clock.currentTimeMillis
          const prepared = yield* d.mutex.sync(() => {
            const size = fsio.ensureFileSize(d.paths.rawPath)
            if (d.follower !== undefined)
              return { size, appended: markBoundary(d, d.follower, size, cfg, now), follower: d.follower }
            repairIndexSync(d.paths.indexPath)
            d.pendingLateEnd = size
            return { size, appended: false, follower: undefined }
          })
          if (prepared.appended) yield* PubSub.publish(d.changed, undefined)
          const f = prepared.follower
          return {
            rawPath: d.paths.rawPath,
            size: prepared.size,
            ...(f === undefined ? {} : { indexed: { lastId: f.nextId - 1, endOffset: f.lineStart } }),
          }
        }),

      follow: (id, options = {}) =>
        Effect.flatMap(daemon(id), (d) => {
          // a new format applies to the lines stored from now on
          if (options.format !== undefined) d.format = options.format
          return FiberMap.unsafeHas(followers, d.key) || !open
            ? Effect.void
            : Effect.uninterruptible(
                Effect.gen(function* () {
                  // made beside the supervisor's thread: `openFollower` then opens it as it is
                  yield* fsio.createAside(d.paths.rawPath)
                  const now = yield* Clock.currentTimeMillis
                  // checked where nothing else runs: a second follow that came meanwhile sees the
                  // first one's follower, and leaves it alone
                  const h = yield* d.mutex.sync(() =>
                    FiberMap.unsafeHas(followers, d.key) || d.follower !== undefined || !open
                      ? undefined
                      : openFollower(d, now),
                  )
                  if (h === undefined) return
                  yield* FiberMap.run(followers, d.key, supervisedFollower(d, h, cfg, retention))
                }),
              )
        }),

      unfollow: (id) => Effect.flatMap(daemon(id), stopFollowing),

      retire: (id) =>
        Effect.flatMap(daemon(id), (d) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const appended = yield* d.mutex.sync(() =>
              d.follower === undefined ? false : drainFollower(d, d.follower, cfg, now),
            )
            if (appended) yield* PubSub.publish(d.changed, undefined)
            yield* stopFollowing(d)
            // a line appended between the drain and the stop (a note) is not left unindexed
            const size = yield* fsio.sizeOfSync(d.paths.rawPath)
            if (size > (yield* service.stats(id)).endOffset) yield* service.follow(id)
          }),
        ),

      isFollowing: (id) => Effect.flatMap(daemon(id), (d) => FiberMap.has(followers, d.key)),

      forget: (id) =>
        Effect.gen(function* () {
          const d = yield* daemon(id)
          yield* stopFollowing(d)
          yield* d.mutex.withLock(
            rewriting(
              d,
              Effect.gen(function* () {
                const { rawPath, indexPath, archivePath } = d.paths
                for (const p of [
                  rawPath,
                  indexPath,
                  `${indexPath}.tmp`,
                  archivePath,
                  `${archivePath}.tmp`,
                  d.paths.fieldsPath,
                ])
                  yield* fsio.removeIfExists(p)
              }),
            ),
          )
          yield* close(d)
          yield* registry.withPermits(1)(
            Effect.sync(() => {
              daemons.delete(d.key)
              for (const [id, known] of byId) if (known === d) byId.delete(id)
            }),
          )
        }),

      query: (id, q = {}) =>
        Effect.flatMap(daemon(id), (d) => consistent(d, runQuery(d.ctx, q))).pipe(
          Effect.map((b) => b.entries),
        ),

      tail: (id, options = {}) =>
        Stream.unwrapScoped(
          Effect.gen(function* () {
            const d = yield* daemon(id)
            const sub = yield* PubSub.subscribe(d.changed) // before reading: no signal is missed
            const history = yield* consistent(d, runQuery(d.ctx, { lines: options.lines ?? 10 }))
            return Stream.fromIterable<LogEntry | LogClear>(history.entries).pipe(
              Stream.concat(live(d, sub, history, true, tailBatchBytes)),
            )
          }),
        ),

      onLines: (id, options = {}) =>
        liveAfter(id, options.afterId, false).pipe(
          Stream.filter((item): item is LogEntry => !("_clear" in item)),
        ),

      after: (id, options) => liveAfter(id, options.afterId, true),

      note: (id, text) =>
        Effect.flatMap(daemon(id), (d) =>
          d.mutex
            .sync(() => {
              fsio.ensureFileSize(d.paths.rawPath) // the directory too
              appendSupervisorLineCounted(health, d.paths.rawPath, text)
            })
            // a daemon that never ran here has no follower: without one the line is never indexed
            .pipe(Effect.zipRight(service.follow(id))),
        ),

      clear: (id) => Effect.flatMap(daemon(id), (d) => d.mutex.withLock(startGeneration(d, true))),

      pruneCut: (id, limits) => Effect.flatMap(daemon(id), (d) => consistent(d, pruneCut(d, limits))),

      range: (id, { after, upTo }) =>
        Stream.unwrap(
          Effect.map(daemon(id), (d) =>
            pagesAfter(
              Effect.map(consistent(d, readStats(d.ctx)), (s) => ({
                ...s,
                firstId: Math.max(s.firstId, after + 1),
                lastId: Math.min(s.lastId, upTo),
              })),
              undefined,
              (cursor, last) =>
                Effect.map(consistent(d, readAfter(d.ctx, cursor, PAGE_BYTES)), (b) => {
                  const entries = b.entries.filter((e) => e.id <= last)
                  return { gen: b.gen, items: [entries], last: entries.at(-1)?.id ?? cursor }
                }),
            ),
          ),
        ),

      release: (id, { gen, upTo }) =>
        Effect.gen(function* () {
          const d = yield* daemon(id)
          const r = yield* d.mutex.withLock(releaseUpTo(d, gen, upTo, cfg.fallocate))
          if (r.released > 0) yield* PubSub.publish(d.changed, undefined)
          if (r.punch !== undefined && !retention.punchDisabled) {
            retention.punchDisabled = true
            yield* Effect.logWarning(
              `log retention: cannot punch holes with ${cfg.fallocate} (${r.punch}); raw log files are kept whole and will grow without bound`,
            )
          }
          return r.released
        }),

      // While following, the follower's state is the index's end (records are appended under
      // the lock): no file to open, which indexedUpTo's polling and every start would do.
      stats: (id) =>
        Effect.flatMap(daemon(id), (d) =>
          d.follower === undefined
            ? consistent(d, readStats(d.ctx))
            : d.mutex.sync(() =>
                d.follower === undefined ? readStatsSync(d.ctx) : followerStats(d.follower),
              ),
        ),

      pages: (id, options = {}) =>
        Stream.unwrap(
          Effect.map(daemon(id), (d) =>
            pagesAfter(consistent(d, readStats(d.ctx)), options.lines, (cursor, upTo) =>
              Effect.map(consistent(d, readAfter(d.ctx, cursor, PAGE_BYTES)), (b) => {
                const entries = b.entries.filter((e) => e.id <= upTo)
                return { gen: b.gen, items: [entries], last: entries.at(-1)?.id ?? cursor }
              }),
            ),
          ),
        ),

      text: (id, options = {}) =>
        Stream.unwrap(
          Effect.map(daemon(id), (d) =>
            pagesAfter(consistent(d, readStats(d.ctx)), options.lines, (cursor, upTo) =>
              Effect.map(
                consistent(d, readTextAfter(d.ctx, cursor, TEXT_PAGE_BYTES, upTo, options)),
                (b) => ({ gen: b.gen, items: b.parts, last: b.last }),
              ),
            ),
          ),
        ),
    }
    return service
  })

/**
 * Per-daemon output capture: follows the O_APPEND files daemons write, indexes them
 * (`<safe_path>.idx`), answers queries and tails. Build it with `LogStore.layer({ dir })`.
 */
export class LogStore extends Context.Tag("supervisor/LogStore")<LogStore, LogStoreShape>() {
  static readonly layer = (options: LogStoreOptions): Layer.Layer<LogStore, never, StorageHealth> =>
    Layer.scoped(LogStore, makeLogStore(options))
}
