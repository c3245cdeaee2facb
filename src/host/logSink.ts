import * as fs from "node:fs"
import { recoveredText, storageFailed, storageOk, throwInjected } from "../state/storageHealth.js"

/**
 * Makes the supervisor's own output (stdout and stderr, the supervisor log when started in the
 * background) survive a full or read-only disk: Node throws from a failed write to a file and the
 * process would exit. A line that cannot be written is counted and dropped; the first one that
 * goes through again is followed by a `[supervisor]` line saying how many were lost, and when.
 * Only for output to a regular file (`supervisor.log`): a terminal or a pipe is left as it is.
 */
export const guardOutputFile = (stream: NodeJS.WriteStream, fd: number, path: string): boolean => {
  try {
    if (!fs.fstatSync(fd).isFile()) return false
  } catch {
    return false
  }
  const write = (chunk: string | Uint8Array, encoding?: unknown): void => {
    const bytes =
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : chunk
    try {
      throwInjected(path)
      let done = 0
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done)
    } catch (error) {
      storageFailed("supervisor_log", path, error, (over) => {
        fs.writeSync(fd, `[supervisor] ${recoveredText(over)}\n`)
      })
      return
    }
    const over = storageOk(path)
    if (over !== undefined) {
      try {
        fs.writeSync(fd, `[supervisor] ${recoveredText(over)}\n`)
      } catch {
        // full again: the next line that goes through says it
      }
    }
  }
  // Replaces the stream's write: every console and logger call goes through it, synchronously.
  stream.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
    write(chunk, encoding)
    const done = typeof encoding === "function" ? encoding : callback
    if (typeof done === "function") process.nextTick(done as () => void)
    return true
  }) as typeof stream.write
  // a stream that failed before the guard was in place must not throw from an 'error' event
  stream.on("error", () => {})
  return true
}
