// Retention: a daemon's stored log is kept under its limit by releasing the oldest half.
import { execFile } from "node:child_process"
import { Effect } from "effect"
import type { DaemonLog, FollowerConfig, FollowerState, RetentionState } from "./daemonLog.js"
import * as fsio from "./fsio.js"
import { reopenIndex, rewriting } from "./generation.js"
import { lastRecord, lowerBound, recordAtOrAfter, scopedView } from "./indexFile.js"
import { writeIndexAtomic } from "./indexWrite.js"

/** `fallocate --punch-hole --offset 0 --length <n> <file>`; the error output on failure. */
export const punchHole = (cmd: string, path: string, length: number): Effect.Effect<string | undefined> =>
  Effect.async((resume) => {
    execFile(
      cmd,
      ["--punch-hole", "--offset", "0", "--length", String(length), path],
      { timeout: 30_000 },
      (err, _stdout, stderr) =>
        resume(
          Effect.succeed(err ? `${err.message}${stderr ? `: ${String(stderr).trim()}` : ""}` : undefined),
        ),
    )
  })

/**
 * Releases the oldest half of the daemon's stored log: copies those raw bytes to the
 * archive, rewrites the index without their records, then punches them out of the raw
 * file (offsets stay valid: the writer appends with O_APPEND). Mutex held.
 */
export const retain = (
  d: DaemonLog,
  f: FollowerState,
  rawFd: number,
  cfg: FollowerConfig,
  rs: RetentionState,
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const view = yield* scopedView(d.paths.indexPath)
      const cut = yield* fsio.attempt(() => {
        const rawTarget = f.base + Math.floor((f.lineStart - f.base) / 2)
        let cutPos = f.lineStart - f.base > cfg.maxBytes ? lowerBound(view, (r) => r.off >= rawTarget) : 0
        if (f.idxSize > cfg.maxBytes) {
          const mid = recordAtOrAfter(view, view.dataStart + Math.floor((view.limit - view.dataStart) / 2))
          cutPos = Math.max(cutPos, mid?.start ?? view.limit)
        }
        return recordAtOrAfter(view, cutPos) ?? lastRecord(view) // keep at least the newest record
      })
      if (cut === undefined || cut.rec.off <= f.base) return
      const { archivePath, indexPath, rawPath } = d.paths
      yield* Effect.scoped(
        Effect.gen(function* () {
          const tmp = `${archivePath}.tmp`
          const out = yield* fsio.scopedOpen(tmp, "w")
          yield* fsio.copyRange(rawFd, rawPath, f.base, cut.rec.off, out, tmp)
          yield* fsio.rename(tmp, archivePath)
        }),
      )
      const failure = yield* rewriting(
        d,
        Effect.gen(function* () {
          yield* writeIndexAtomic(
            indexPath,
            { gen: f.gen, next: cut.rec.first, off: cut.rec.off, ts: view.header.ts },
            { view, from: cut.start, to: view.limit },
          )
          yield* reopenIndex(d, f)
          f.first = cut.rec.first
          f.base = cut.rec.off
          const failed = yield* punchHole(cfg.fallocate, rawPath, cut.rec.off)
          // the fields lines of the released entries go with them
          if (failed === undefined && cut.rec.fo !== undefined && cut.rec.fo > 0)
            return yield* punchHole(cfg.fallocate, d.paths.fieldsPath, cut.rec.fo)
          return failed
        }),
      )
      if (failure !== undefined && !rs.punchDisabled) {
        rs.punchDisabled = true
        yield* Effect.logWarning(
          `log retention: cannot punch holes with ${cfg.fallocate} (${failure}); raw log files are kept whole and will grow without bound`,
        )
      }
    }),
  )
