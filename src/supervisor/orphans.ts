import * as fs from "node:fs"
import * as nodePath from "node:path"
import { isExitedState, listPids, readStat } from "../process/procfs.js"

/** A live daemon process found in /proc: a session leader writing to one of our log files. */
export interface FoundProcess {
  readonly pid: number
  readonly startTime: string
  /** Its output file, as the kernel resolves it (no symbolic links). */
  readonly outputFile: string
}

const realPath = (path: string): string => {
  try {
    return fs.realpathSync(path)
  } catch {
    // not created yet: its directory may still be reached through a link
    try {
      return nodePath.join(fs.realpathSync(nodePath.dirname(path)), nodePath.basename(path))
    } catch {
      return path
    }
  }
}

/**
 * The daemon processes of a log directory: each daemon is spawned as the leader of its own
 * session with stdout on its log file (`<logs>/<safe_path>.out`), so a session leader whose fd 1
 * is such a file is a daemon's process, even one the state file never heard of (a supervisor
 * killed between the spawn and the state write). Hooks and ready checks write to pipes, and a
 * daemon's children are not session leaders: neither is found.
 */
export const findDaemonProcesses = (logsDir: string): ReadonlyArray<FoundProcess> => {
  const dir = `${realPath(logsDir)}${nodePath.sep}`
  const found: Array<FoundProcess> = []
  for (const pid of listPids()) {
    if (pid === process.pid) continue
    const stat = readStat(pid)
    if (stat === undefined || stat.session !== pid || isExitedState(stat.state)) continue
    let target: string
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/1`)
    } catch {
      continue // gone, or not ours to look at
    }
    if (target.startsWith(dir) && target.endsWith(".out"))
      found.push({ pid, startTime: stat.startTime, outputFile: target })
  }
  return found
}

/** `rawPath` as `findDaemonProcesses` reports it (links resolved), to match the two. */
export const outputFileKey = realPath
