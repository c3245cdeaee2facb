import type { PubSub } from "effect"
import type { LogFormat } from "../domain/LogFormat.js"
import type { StorageHealthShape } from "../state/StorageHealth.js"
import type { LogMutex } from "./mutex.js"

/** The files of one daemon under the logs directory. */
export interface LogPaths {
  /** `<safe_path>.out`: the raw bytes the daemon writes (O_APPEND). */
  readonly rawPath: string
  /** `<safe_path>.idx`: the ndjson index of read chunks. */
  readonly indexPath: string
  /** `<safe_path>.out.1`: the raw bytes most recently released by retention. */
  readonly archivePath: string
  /** `<safe_path>.fields`: the parsed fields of a structured daemon's lines (structured/fieldsFile.ts). */
  readonly fieldsPath: string
}

/** The follower's position; mutated only while holding the daemon's mutex. */
export interface FollowerState {
  gen: number
  /** The index header's first id (`next`). */
  first: number
  nextId: number
  /** Next raw byte to read. */
  pos: number
  /** Raw offset of the first byte not yet in an entry (the start of `carry`). */
  lineStart: number
  /** Bytes `[lineStart, pos)`: a line still waiting for its newline (at most maxLine + 3 bytes). */
  carry: Buffer | undefined
  lastTs: number
  /** First raw byte the index still refers to. */
  base: number
  /** The index open for appending; undefined until the first record makes the file. */
  idxFd: number | undefined
  idxSize: number
  /** The fields file open for appending; undefined until a structured record makes it. */
  fldFd: number | undefined
  /** Its size: where the next fields lines go. */
  fldSize: number
  /** Bytes below this offset were written while no supervisor followed the file. */
  lateEnd: number
  /** Timestamp given to late entries: the raw file's mtime when following started. */
  lateTs: number
  /** A new daemon starts writing here: a partial line before it is flushed on its own. */
  boundary: number | undefined
  /** When the raw file last grew (epoch ms), for the partial-line flush. */
  lastGrowth: number
}

/** Everything the store keeps per daemon. */
export interface DaemonLog {
  /** The qualified ID, `namespace/name`. */
  readonly id: string
  /** `namespace--name`. */
  readonly key: string
  readonly paths: LogPaths
  readonly ctx: ReadContext
  /** Serialises the follower's steps, clear, retention and forget. */
  readonly mutex: LogMutex
  /** Where failed writes of its files are counted (the store's StorageHealth). */
  readonly health: StorageHealthShape
  /** "Something new was indexed": sliding, capacity 1; tails re-read the index on it. */
  readonly changed: PubSub.PubSub<void>
  /** Set by `forget` and when the store closes: tails of this daemon end at their next pull. */
  closed: boolean
  /** Seqlock for lock-free readers: odd while clear/retention rewrite files. */
  epoch: number
  /** How new lines are parsed when stored (`follow` sets it from the daemon's log_format). */
  format: LogFormat
  /** Raw size recorded by `prepare` while not following: the new daemon's first byte. */
  pendingLateEnd: number | undefined
  follower: FollowerState | undefined
}

/** Where a daemon's files are and how its bytes were split. */
export interface ReadContext {
  readonly daemonId: string
  readonly rawPath: string
  readonly indexPath: string
  /** The parsed fields of a structured daemon's entries (structured/fieldsFile.ts). */
  readonly fieldsPath: string
  readonly maxLine: number
}

/** The resolved store options the follower needs. */
export interface FollowerConfig {
  readonly chunkBytes: number
  readonly maxLineBytes: number
  readonly pollMillis: number
  readonly flushAfterMillis: number
  readonly maxBytes: number
  readonly fallocate: string
}

/** Store-wide retention state: punching holes is switched off after the first failure. */
export interface RetentionState {
  punchDisabled: boolean
}
