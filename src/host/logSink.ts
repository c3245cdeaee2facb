import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { StorageHealth, type StorageHealthShape } from "../state/StorageHealth.js"
import { recoveredText, throwInjected } from "../state/storageFaults.js"

/** A guarded output stream: its failed writes are counted by the StorageHealth attached to it. */
export interface OutputGuard {
  /** Counts failures with `health` from now on (and those before, if any); undefined detaches. */
  readonly attach: (health: StorageHealthShape | undefined) => void
}

/**
 * Makes the supervisor's own output (stdout and stderr, the supervisor log when started in the
 * background) survive a full or read-only disk: Node throws from a failed write to a file and the
 * process would exit. A line that cannot be written is counted and dropped; the first one that
 * goes through again is followed by a `[supervisor] ` line saying how many were lost, and when.
 * Only for output to a regular file (`supervisor.log`): a terminal or a pipe is left as it is
 * (undefined). Installed before the services exist: failures before `attach` are counted then.
 */
export const guardOutputFile = (
  stream: NodeJS.WriteStream,
  fd: number,
  path: string,
): OutputGuard | undefined => {
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined
  } catch {
    return undefined
  }
  let health: StorageHealthShape | undefined
  const early: Array<unknown> = [] // failures before a health was attached (at most a few kept)
  const recoveredLine = (over: Parameters<typeof recoveredText>[0]) => {
    fs.writeSync(fd, `[supervisor] ${recoveredText(over)}\n`)
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
      if (health !== undefined) health.failed("supervisor_log", path, error, recoveredLine)
      else if (early.length < 100) early.push(error)
      return
    }
    early.length = 0
    const over = health?.ok(path)
    if (over !== undefined) {
      try {
        recoveredLine(over)
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
  return {
    attach: (h) => {
      health = h
      if (h === undefined) return
      for (const error of early.splice(0)) h.failed("supervisor_log", path, error, recoveredLine)
    },
  }
}

/** Attaches the guards to the StorageHealth of the layer's context, for as long as its scope. */
export const outputGuardsLayer = (guards: ReadonlyArray<OutputGuard | undefined>) =>
  Layer.scopedDiscard(
    Effect.flatMap(StorageHealth, (health) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          for (const g of guards) g?.attach(health)
        }),
        () =>
          Effect.sync(() => {
            for (const g of guards) g?.attach(undefined)
          }),
      ),
    ),
  )
