import * as fs from "node:fs"
import * as nodePath from "node:path"
import { replaceFile } from "../../state/replaceFile.js"

/**
 * Replaces a configuration file atomically: the new text goes to a temporary file beside it,
 * which is renamed over it, so that a reader (the supervisor's file watch) sees the old or the
 * new file, never half of one. Keeps the file's permissions; a new file gets 0644.
 */
export const writeTomlAtomic = (file: string, text: string): void => {
  const dir = nodePath.dirname(file)
  fs.mkdirSync(dir, { recursive: true })
  let mode = 0o644
  try {
    mode = fs.statSync(file).mode & 0o7777
  } catch {
    // a new file
  }
  replaceFile(
    file,
    nodePath.join(dir, `.${nodePath.basename(file)}.${process.pid}.${Date.now()}.tmp`),
    text,
    mode,
  )
}
