import * as fs from "node:fs"
import type { StorageHealthShape } from "../state/StorageHealth.js"
import { recoveredText, throwInjected } from "../state/storageFaults.js"

// Lines the supervisor itself writes into a daemon's log (its crashes and restarts), marked by a
// prefix: they are stored, read, tailed and filtered like the daemon's own lines (docs/logs.md).

/** The start of every line the supervisor writes into a daemon's log. */
export const SUPERVISOR_PREFIX = "[supervisor] "

/** Whether a log line (its message) is one the supervisor wrote. */
export const isSupervisorLine = (message: string): boolean => message.startsWith(SUPERVISOR_PREFIX)

/** The bytes of one supervisor line: on a line of its own, even after a daemon's unfinished line. */
export const supervisorLineBytes = (text: string, afterPartialLine: boolean): string =>
  `${afterPartialLine ? "\n" : ""}${SUPERVISOR_PREFIX}${text.replace(/[\r\n]+/g, " ")}\n`

/**
 * Appends a supervisor line to a daemon's raw log file (created if missing), as the daemon's
 * own output is appended (O_APPEND): the follower indexes it like any other line.
 */
export const appendSupervisorLineSync = (rawPath: string, text: string): void => {
  const fd = fs.openSync(rawPath, "a+", 0o600)
  try {
    const size = fs.fstatSync(fd).size
    const last = Buffer.alloc(1)
    const partial = size > 0 && fs.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10
    fs.writeSync(fd, supervisorLineBytes(text, partial))
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * `appendSupervisorLineSync`, its failures counted for `supervisor supervisor status`; the first
 * line that goes through after failures is followed by one saying how many failed, and when.
 */
export const appendSupervisorLineCounted = (
  health: StorageHealthShape,
  rawPath: string,
  text: string,
): void => {
  try {
    throwInjected(rawPath)
    appendSupervisorLineSync(rawPath, text)
  } catch (error) {
    health.failed("logs", rawPath, error, (over) => appendSupervisorLineSync(rawPath, recoveredText(over)))
    throw error
  }
  const over = health.ok(rawPath)
  if (over !== undefined) appendSupervisorLineSync(rawPath, recoveredText(over))
}
