// A daemon's output for one attached client: read from its log file as it grows (the log itself
// is stored as always), at most LIMIT bytes waiting for a slow client; past that the client skips
// to the end and is told how much it missed.
import * as fs from "node:fs"

/** How much output may wait for one client before it skips ahead. */
export const CLIENT_BUFFER_LIMIT = 1024 * 1024
const CHUNK = 64 * 1024
/** The fallback poll, for a change the file watcher did not report. */
const POLL_MS = 1000

export interface OutputSink {
  readonly send: (bytes: Buffer) => void
  /** Bytes sent and not yet taken by the client. */
  readonly buffered: () => number
  readonly dropped: (bytes: number) => void
}

/** The last `rows` lines of the file (from its last 64 KiB): the screen a client attaches to. */
export const recentScreen = (
  path: string,
  rows: number,
): { readonly bytes: Buffer; readonly end: number } => {
  let fd: number
  try {
    fd = fs.openSync(path, "r")
  } catch {
    return { bytes: Buffer.alloc(0), end: 0 }
  }
  try {
    const end = fs.fstatSync(fd).size
    const from = Math.max(0, end - CHUNK)
    const tail = Buffer.alloc(end - from)
    fs.readSync(fd, tail, 0, tail.length, from)
    // back from the end to the newline before the earliest of the last `rows` lines
    let i = tail.length - 1
    if (tail[i] === 0x0a) i--
    for (let newlines = 0; i >= 0; i--) if (tail[i] === 0x0a && ++newlines === rows) break
    // a read that starts mid-file starts after its first (partial) line
    const start = i >= 0 ? i + 1 : from === 0 ? 0 : tail.indexOf(0x0a) + 1
    return { bytes: tail.subarray(start), end }
  } finally {
    fs.closeSync(fd)
  }
}

/** Follows `path` from `offset`; returns the function that stops following. */
export const followOutput = (path: string, offset: number, sink: OutputSink): (() => void) => {
  let at = offset
  let skipped = 0
  let stopped = false
  const pump = () => {
    if (stopped) return
    let fd: number
    try {
      fd = fs.openSync(path, "r")
    } catch {
      return
    }
    try {
      for (;;) {
        // the client reads again: it hears what it missed, with or without new output
        if (skipped > 0 && sink.buffered() < CLIENT_BUFFER_LIMIT) {
          sink.dropped(skipped)
          skipped = 0
        }
        const size = fs.fstatSync(fd).size
        if (size < at) at = 0 // the log was cleared: its new output starts at 0
        if (at >= size) break
        if (sink.buffered() >= CLIENT_BUFFER_LIMIT) {
          skipped += size - at
          at = size
          break
        }
        const chunk = Buffer.alloc(Math.min(CHUNK, size - at))
        const n = fs.readSync(fd, chunk, 0, chunk.length, at)
        if (n <= 0) break
        at += n
        sink.send(n === chunk.length ? chunk : chunk.subarray(0, n))
      }
    } finally {
      fs.closeSync(fd)
    }
  }
  let watcher: fs.FSWatcher | undefined
  try {
    watcher = fs.watch(path, { persistent: false }, pump)
    watcher.on("error", () => undefined) // the poll goes on
  } catch {
    // no inotify watches left: the poll alone
  }
  const timer = setInterval(pump, POLL_MS)
  timer.unref()
  pump()
  return () => {
    pump() // what the daemon wrote before the end
    stopped = true
    watcher?.close()
    clearInterval(timer)
  }
}
