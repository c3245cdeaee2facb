import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { candidateLocations } from "./discover.js"
import { type LoadOptions, loadConfig } from "./Loader.js"

/**
 * `loadConfig` for a long-lived process that loads the same configurations again and again
 * (the supervisor answering `list --json` from a project directory): the last result for the
 * same directory and environment is reused while every candidate file is unchanged (same
 * inode, size, mtime and ctime, or still absent). A file that changes while it is being loaded
 * only costs one more load: the result is kept under the fingerprint taken before it. A result
 * is not kept while a file is younger than `settleMillis`: where the file system's timestamps are
 * coarse, a same-size edit within the same tick would not change the fingerprint (git's "racy
 * clean" problem).
 */
export const makeConfigCache = ({ capacity = 16, settleMillis = 2000 } = {}) => {
  // at most `capacity` directory/environment pairs, the least recently used dropped first
  const entries = new Map<string, { readonly fingerprint: string; readonly config: ResolvedConfig }>()
  // the supervisor passes the same environment object each time (a copy it never changes): written
  // out once, not per load; process.env can change, so it is written out each time
  const envKeys = new WeakMap<object, string>()
  const envKey = (env: LoadOptions["env"]) => {
    if (env === process.env) return JSON.stringify(env)
    let key = envKeys.get(env)
    if (key === undefined) {
      key = JSON.stringify(env)
      envKeys.set(env, key)
    }
    return key
  }
  return (options: LoadOptions) =>
    Effect.gen(function* () {
      const home = options.home ?? (options.env.HOME || os.homedir())
      const cwd = nodePath.resolve(options.cwd)
      const key = JSON.stringify([cwd, home, envKey(options.env)])
      const locations = candidateLocations({ cwd, home, env: options.env })
      const now = Date.now()
      const { fingerprint, newest } = fingerprintOf(locations.map((l) => l.path))
      const hit = entries.get(key)
      entries.delete(key) // re-inserted below: the map's order is least recently used first
      if (hit !== undefined && hit.fingerprint === fingerprint) {
        entries.set(key, hit)
        return hit.config
      }
      const config = yield* loadConfig(options)
      // (0: no settling; a file's time in nanoseconds can lie past `now`, truncated to the millisecond)
      if (settleMillis > 0 && newest > now - settleMillis) return config
      entries.set(key, { fingerprint, config })
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break
        entries.delete(oldest)
      }
      return config
    })
}

/**
 * The candidates' stats as one string, and the newest of their change times. Synchronous: ~20
 * `stat`s of local paths take well under a millisecond, less than as many thread-pool round trips.
 */
const fingerprintOf = (paths: ReadonlyArray<string>): { fingerprint: string; newest: number } => {
  const stats = paths.map((path) => {
    try {
      return fs.statSync(path, { throwIfNoEntry: false })
    } catch {
      return undefined // unreadable (EACCES, ENOTDIR): as good as absent, as before
    }
  })
  return {
    fingerprint: stats.map((s) => (s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : "-")).join("|"),
    newest: Math.max(0, ...stats.map((s) => (s ? Math.max(s.mtimeMs, s.ctimeMs) : 0))),
  }
}
