import { Duration, type Effect, type Stream } from "effect"
import type { LogClear, LogEntry } from "../domain/LogEntry.js"
import type { LogFormat } from "../domain/LogFormat.js"
import type { LogPaths } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import type { PruneCut, PruneLimits } from "./prune.js"
import type { LogQuery, LogStats } from "./reader.js"
import type { TextOptions } from "./textRender.js"

/** Options of `LogStore.layer`. Sizes in bytes. */
export interface LogStoreOptions {
  /** Directory of the log files (`<safe_path>.out`, `.idx`, `.out.1`); created on first use. */
  readonly dir: string
  /**
   * Retention: when a daemon's stored raw bytes (or its index file) exceed this, the oldest
   * half is archived to `<safe_path>.out.1` and released. Default 32 MiB.
   */
  readonly maxBytes?: number
  /** Size of one read of the raw file, and so at most one index record's new bytes. Default 64 KiB. */
  readonly chunkBytes?: number
  /** A line longer than this is split into several entries. Default 64 KiB; at least 16. */
  readonly maxLineBytes?: number
  /** Poll interval when no fs.watch event arrives. Default 500 ms. */
  readonly pollInterval?: Duration.DurationInput
  /** A partial last line becomes an entry once the file has not grown for this long. Default 1 s. */
  readonly partialLineFlush?: Duration.DurationInput
  /** The util-linux `fallocate` command used to punch released bytes out. Default `"fallocate"`. */
  readonly fallocate?: string
  /** Raw bytes a tail reads per pull (at least one index record). Default 64 KiB. */
  readonly tailBatchBytes?: number
}

export const LogStoreDefaults = {
  maxBytes: 32 * 1024 * 1024,
  chunkBytes: 64 * 1024,
  maxLineBytes: 64 * 1024,
  pollInterval: Duration.millis(500),
  partialLineFlush: Duration.seconds(1),
  fallocate: "fallocate",
  tailBatchBytes: 64 * 1024,
} as const

/** How a followed daemon's lines are stored. */
export interface FollowOptions {
  readonly format?: LogFormat
}

/** What `prepare` says of the run about to start. */
export interface PreparedRun {
  /** The raw file the daemon's output goes to (opened with O_APPEND). */
  readonly rawPath: string
  /** Its size: the new run's output starts here. */
  readonly size: number
  /** While following: the last id stored and the raw offset indexed up to, now. */
  readonly indexed?: { readonly lastId: number; readonly endOffset: number }
}

export interface LogStoreShape {
  /** The logs directory. */
  readonly dir: string
  /** The files of a daemon (`id` is the qualified `namespace/name`). */
  readonly paths: (id: string) => Effect.Effect<LogPaths, LogStoreError>
  /**
   * Creates the logs directory and the daemon's files if missing, and records the raw file's
   * size: bytes after it belong to the daemon about to be spawned (not late). Call it before
   * spawning; the daemon's stdout and stderr go to `rawPath`, opened with O_APPEND. `size` is
   * that size: once the index reaches it (`stats(id).endOffset`), every earlier line has its id.
   */
  readonly prepare: (id: string) => Effect.Effect<PreparedRun, LogStoreError>
  /**
   * Starts following the daemon's raw file (idempotent). The follower lives in the store's scope.
   * `format` (default: as before, at first `text`) is how the lines stored from now on are parsed.
   */
  readonly follow: (id: string, options?: FollowOptions) => Effect.Effect<void, LogStoreError>
  /** Stops the follower, if any, and waits for it. What was indexed stays. */
  readonly unfollow: (id: string) => Effect.Effect<void, LogStoreError>
  /**
   * For a daemon whose run ended (nothing writes its output any more): indexes the rest of its
   * file, a last line without a newline included, then stops its follower, closing its files.
   * A line written meanwhile (a note) is followed again. `follow` resumes it, as at a start.
   */
  readonly retire: (id: string) => Effect.Effect<void, LogStoreError>
  readonly isFollowing: (id: string) => Effect.Effect<boolean, LogStoreError>
  /** Unfollows and deletes the daemon's files (for `clean`); its open tails end. */
  readonly forget: (id: string) => Effect.Effect<void, LogStoreError>
  /** Stored entries selected by `q`, in id order. */
  readonly query: (id: string, q?: LogQuery) => Effect.Effect<ReadonlyArray<LogEntry>, LogStoreError>
  /**
   * The last `lines` stored entries (all of them without `lines`), in id order, in batches of
   * about 256 KiB of output: what `logs ID -n N` streams without holding N entries in memory.
   * It ends at the last entry stored when it started (or early, if the log is cleared).
   */
  readonly pages: (
    id: string,
    options?: { readonly lines?: number },
  ) => Stream.Stream<ReadonlyArray<LogEntry>, LogStoreError>
  /**
   * The same entries as `pages` as text, one per line (src/logs/textRender.ts): each message as
   * `query` gives it (ANSI stripped with `raw`), after its timestamp with `timestamps`, then
   * "\n". Read about 1 MiB of output at a time, mostly passed through as the bytes read: what
   * `logs ID -n N` prints without colours or JSON.
   */
  readonly text: (
    id: string,
    options?: { readonly lines?: number } & TextOptions,
  ) => Stream.Stream<Uint8Array, LogStoreError>
  /**
   * The last `lines` (default 10) entries, then every new entry as it is indexed, forever;
   * `{ _clear: true, _gen }` when the log is cleared. Pull-based: a slow consumer gets every
   * entry still stored and holds at most one batch in memory.
   */
  readonly tail: (
    id: string,
    options?: { readonly lines?: number },
  ) => Stream.Stream<LogEntry | LogClear, LogStoreError>
  /**
   * New entries only, without control objects (readiness on output, output hooks): those
   * with an id above `afterId`, by default the last id stored when the stream starts. Pass
   * `stats(id).lastId` taken before spawning to see every line of the new run.
   */
  readonly onLines: (
    id: string,
    options?: { readonly afterId?: number },
  ) => Stream.Stream<LogEntry, LogStoreError>
  /**
   * Like `onLines` (entries above `afterId`, then the new ones, forever), with the
   * `{ _clear: true, _gen }` notices of `tail`: a filtered tail (src/api/tailQuery.ts).
   */
  readonly after: (
    id: string,
    options: { readonly afterId: number },
  ) => Stream.Stream<LogEntry | LogClear, LogStoreError>
  /** Which stored entries fall outside `limits` (time_retention, line_retention): see prune.ts. */
  readonly pruneCut: (id: string, limits: PruneLimits) => Effect.Effect<PruneCut, LogStoreError>
  /**
   * The stored entries with an id above `after` and at most `upTo`, in id order, in batches of
   * about 256 KiB of output (what an archive hook is given before a pruning).
   */
  readonly range: (
    id: string,
    options: { readonly after: number; readonly upTo: number },
  ) => Stream.Stream<ReadonlyArray<LogEntry>, LogStoreError>
  /**
   * Releases the entries with an id up to `upTo` of generation `gen` (nothing if the log was
   * cleared since); returns how many went. The index is rewritten, the bytes punched out.
   */
  readonly release: (
    id: string,
    cut: { readonly gen: number; readonly upTo: number },
  ) => Effect.Effect<number, LogStoreError>
  /**
   * Appends a line of the supervisor's own to the daemon's log, `[supervisor] <text>` (a crash,
   * a restart and why: src/logs/supervisorLine.ts); it is indexed like the daemon's output.
   */
  readonly note: (id: string, text: string) => Effect.Effect<void, LogStoreError>
  /** Empties the raw file and starts a new generation (ids keep increasing); returns it. */
  readonly clear: (id: string) => Effect.Effect<number, LogStoreError>
  readonly stats: (id: string) => Effect.Effect<LogStats, LogStoreError>
}
