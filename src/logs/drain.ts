import type { DaemonLog, FollowerState } from "./daemonLog.js"
import { type FollowerConfig, step } from "./follower.js"
import * as fsio from "./fsio.js"

/**
 * Indexes what is left of a daemon's raw file once nothing writes to it (its run ended): every
 * complete line, and a last line without a newline as an entry of its own, as the follower would
 * after `partialLineFlush`. One synchronous block (call it holding the lock); true when it stored
 * an entry. A file that shrank is left to the next follower.
 */
export const drainFollower = (d: DaemonLog, f: FollowerState, cfg: FollowerConfig, now: number): boolean => {
  const fd = fsio.openSync(d.paths.rawPath, "r")
  try {
    let appended = false
    for (;;) {
      const r = step(d, f, fd, cfg, now)
      appended ||= r.appended
      if (r.next === "more") continue
      if (r.next === "idle" && f.carry !== undefined)
        appended = step(d, f, fd, cfg, now + cfg.flushAfterMillis).appended || appended
      return appended
    }
  } finally {
    fsio.closeSync(fd)
  }
}
