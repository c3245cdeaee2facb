// The named pipe a daemon's input goes through (docs/attach.md): made anew before each run, so a
// holder or process left by an earlier run keeps its own and never takes the new run's input.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { errorMessage } from "./errno.js"

/** A daemon's input pipe: next to its log file, `<safe_path>.in`. */
export const inputPath = (rawPath: string): string => rawPath.replace(/\.out$/, ".in")

/** Makes `path` a fresh FIFO (mode 0600); the problem in words when it cannot be made. */
export const makeFifo = (path: string): string | undefined => {
  try {
    fs.rmSync(path, { force: true })
  } catch (error) {
    return `cannot replace the input pipe ${path}: ${errorMessage(error)}`
  }
  // Node has no mkfifo(2); coreutils' mkfifo is on every system this runs on
  const r = spawnSync("mkfifo", ["-m", "600", path], { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } })
  if (r.status === 0) return undefined
  return `cannot make the input pipe ${path}: ${(r.stderr ?? "").trim() || (r.error === undefined ? `mkfifo exited with ${r.status}` : errorMessage(r.error))}`
}

/**
 * Opens a FIFO for reading and writing without blocking (a FIFO opened for reading alone waits
 * for a writer): the daemon's stdin, which so never reads end-of-file when a writer goes away.
 */
export const openFifoForDaemon = (path: string): number => fs.openSync(path, fs.constants.O_RDWR)
