import * as fs from "node:fs"

/**
 * Replaces `file` atomically: `text` goes to `temp` (created with `mode`, exactly), is synced,
 * then renamed over `file`. When a step fails the temp file is removed: a half-written one would
 * hold on to the space a full disk needs back.
 */
export const replaceFile = (file: string, temp: string, text: string, mode: number): void => {
  try {
    const fd = fs.openSync(temp, "w", mode)
    try {
      fs.writeFileSync(fd, text)
      fs.fchmodSync(fd, mode)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(temp, file)
  } catch (e) {
    fs.rmSync(temp, { force: true })
    throw e
  }
}
