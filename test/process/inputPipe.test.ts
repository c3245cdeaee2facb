/**
 * Writing a daemon's input (src/process/inputPipe.ts) to a real named pipe: frames for a pty
 * holder stay within PIPE_BUF, plain bytes arrive whole and in order, and a pipe nobody reads is
 * a clear error, never a hang.
 */
import * as fs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { inputPath, makeFifo } from "../../src/process/fifo.js"
import { pipePieces, sizeFrame, typedFrames, writePieces } from "../../src/process/inputPipe.js"

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "sv-input-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("input frames", () => {
  it("typed bytes: 'i', a 16-bit length, at most PIPE_BUF in all", () => {
    const frames = typedFrames(Buffer.alloc(10_000, 0x61))
    expect(frames.map((f) => f.length)).toEqual([4096, 4096, 10_000 - 2 * 4093 + 3])
    expect([...frames[0]!.subarray(0, 3)]).toEqual([0x69, 4093 >> 8, 4093 & 0xff])
    expect(Buffer.concat(frames.map((f) => f.subarray(3))).toString()).toBe("a".repeat(10_000))
  })

  it("a window size: 'w', 4, rows and columns", () => {
    expect([...sizeFrame(40, 300)]).toEqual([0x77, 0, 4, 0, 40, 300 >> 8, 300 & 0xff])
  })

  it("plain bytes in atomic pieces", () => {
    expect(pipePieces(Buffer.alloc(9000)).map((p) => p.length)).toEqual([4096, 4096, 808])
  })

  it("the pipe sits next to the log", () => {
    expect(inputPath("/logs/app--web.out")).toBe("/logs/app--web.in")
  })
})

describe("writePieces", () => {
  it("writes in order to a pipe that is read", async () => {
    const path = join(dir, "d.in")
    expect(makeFifo(path)).toBeUndefined()
    expect(fs.statSync(path).isFIFO()).toBe(true)
    expect(fs.statSync(path).mode & 0o777).toBe(0o600)
    const reader = fs.openSync(path, fs.constants.O_RDWR) // as the daemon holds it
    await Effect.runPromise(writePieces(path, pipePieces(Buffer.from("hello\n"))))
    const got = Buffer.alloc(64)
    const n = fs.readSync(reader, got)
    expect(got.subarray(0, n).toString()).toBe("hello\n")
    fs.closeSync(reader)
  })

  it("a pipe nobody holds (the run ended) is refused, in words", async () => {
    const path = join(dir, "gone.in")
    expect(makeFifo(path)).toBeUndefined()
    const r = await Effect.runPromise(Effect.either(writePieces(path, [Buffer.from("x")])))
    expect(Either.isLeft(r) && r.left.reason).toBe("no-reader")
    const missing = await Effect.runPromise(
      Effect.either(writePieces(join(dir, "none.in"), [Buffer.from("x")])),
    )
    expect(Either.isLeft(missing) && missing.left.message).toContain("nothing reads its input")
  })

  it("a pipe whose reader reads nothing is refused once it is full", async () => {
    const path = join(dir, "full.in")
    expect(makeFifo(path)).toBeUndefined()
    const holder = fs.openSync(path, fs.constants.O_RDWR) // opened, never read
    const r = await Effect.runPromise(Effect.either(writePieces(path, pipePieces(Buffer.alloc(1024 * 1024)))))
    expect(Either.isLeft(r) && r.left.reason).toBe("full")
    fs.closeSync(holder)
  })
})
