// Writing to a daemon's input pipe (docs/attach.md, src/process/fifo.ts). Each write is at most
// PIPE_BUF bytes, so it lands whole even with other writers; the pipe is opened without blocking:
// a full pipe (the daemon reads nothing) or no reader yet is retried until a deadline.
import * as fs from "node:fs"
import { Data, Effect } from "effect"
import { errnoCode, errorMessage } from "./errno.js"

/** Linux's PIPE_BUF: a write of at most this many bytes to a pipe is atomic. */
const PIPE_BUF = 4096
/** A pty holder's frame: type, 16-bit length, body (src/process/ptyScript.ts). */
const FRAME_HEAD = 3

export class InputPipeError extends Data.TaggedError("InputPipeError")<{
  readonly reason: "no-reader" | "full" | "failed"
  readonly message: string
}> {}

/** The frames of typed bytes for a pty holder: 'i', length, at most PIPE_BUF bytes each. */
export const typedFrames = (bytes: Uint8Array): ReadonlyArray<Buffer> => {
  const frames: Array<Buffer> = []
  for (let at = 0; at < bytes.length; at += PIPE_BUF - FRAME_HEAD) {
    const body = bytes.subarray(at, Math.min(bytes.length, at + PIPE_BUF - FRAME_HEAD))
    const head = Buffer.from([0x69, body.length >> 8, body.length & 0xff])
    frames.push(Buffer.concat([head, body]))
  }
  return frames
}

/** The frame that sets a pty's window size. */
export const sizeFrame = (rows: number, cols: number): Buffer =>
  Buffer.from([0x77, 0, 4, rows >> 8, rows & 0xff, cols >> 8, cols & 0xff])

/** Plain bytes for a pipe read by the daemon itself, in atomic pieces. */
export const pipePieces = (bytes: Uint8Array): ReadonlyArray<Buffer> => {
  const pieces: Array<Buffer> = []
  for (let at = 0; at < bytes.length; at += PIPE_BUF)
    pieces.push(Buffer.from(bytes.subarray(at, Math.min(bytes.length, at + PIPE_BUF))))
  return pieces
}

/** How long a write waits for a reader to appear or for room in the pipe. */
const PATIENCE_MS = 2000
const STEP_MS = 5

/** Writes `pieces` to the FIFO at `path`, in order, each whole. */
export const writePieces = (
  path: string,
  pieces: ReadonlyArray<Buffer>,
): Effect.Effect<void, InputPipeError> =>
  Effect.gen(function* () {
    const deadline = Date.now() + PATIENCE_MS
    let fd: number | undefined
    while (fd === undefined) {
      const opened = yield* Effect.try({
        try: () => fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK),
        catch: (e) => e,
      }).pipe(Effect.either)
      if (opened._tag === "Right") fd = opened.right
      else if (errnoCode(opened.left) === "ENXIO" && Date.now() < deadline) yield* Effect.sleep(STEP_MS)
      else
        return yield* new InputPipeError(
          errnoCode(opened.left) === "ENXIO" || errnoCode(opened.left) === "ENOENT"
            ? { reason: "no-reader", message: "nothing reads its input (its run has ended)" }
            : {
                reason: "failed",
                message: `cannot open its input pipe ${path}: ${errorMessage(opened.left)}`,
              },
        )
    }
    const open = fd
    yield* Effect.gen(function* () {
      for (const piece of pieces)
        for (;;) {
          const wrote = yield* Effect.try({ try: () => fs.writeSync(open, piece), catch: (e) => e }).pipe(
            Effect.either,
          )
          if (wrote._tag === "Right") break
          if (errnoCode(wrote.left) !== "EAGAIN")
            return yield* new InputPipeError({
              reason: errnoCode(wrote.left) === "EPIPE" ? "no-reader" : "failed",
              message: `cannot write to its input pipe ${path}: ${errorMessage(wrote.left)}`,
            })
          if (Date.now() >= deadline)
            return yield* new InputPipeError({
              reason: "full",
              message: "it does not read its input: the pipe has been full for 2 s",
            })
          yield* Effect.sleep(STEP_MS)
        }
    }).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(open))))
  })
