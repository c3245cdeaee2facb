import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { StatePaths } from "./paths.js"

/**
 * Makes what an earlier version left readable to others private again, at every start: the
 * state directory 0700, and under `logs/` every directory 0700 and file 0600 (they were made
 * 0750/0640 once). Only modes with group or other bits are changed; a path that vanished or
 * is not ours is left as it is (this is hardening, not a condition of starting).
 */
export const tightenStateModes = (paths: StatePaths): void => {
  const tighten = (path: string, mode: number) => {
    try {
      if ((fs.lstatSync(path).mode & 0o077) !== 0) fs.chmodSync(path, mode)
    } catch {}
  }
  tighten(paths.dir, 0o700)
  const walk = (dir: string) => {
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const path = nodePath.join(dir, e.name)
      if (e.isDirectory()) {
        tighten(path, 0o700)
        walk(path)
      } else if (e.isFile()) tighten(path, 0o600)
    }
  }
  tighten(paths.logsDir, 0o700)
  walk(paths.logsDir)
}
