/**
 * The output side of an attached client (src/api/attach/output.ts) against real files: the recent
 * screen is the last lines, live output follows the file as it grows, and a client that takes
 * nothing skips ahead and is told how much it missed once it takes again.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { CLIENT_BUFFER_LIMIT, followOutput, recentScreen } from "../../src/api/attach/output.js"

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sv-attach-out-"))
  file = join(dir, "d.out")
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const until = async (what: string, test: () => boolean) => {
  const deadline = Date.now() + 10_000
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe("recentScreen", () => {
  it("is the last rows lines, a prompt without a newline included", () => {
    writeFileSync(file, "one\ntwo\nthree\nfour\n>>> ")
    expect(recentScreen(file, 2).bytes.toString()).toBe("four\n>>> ")
    expect(recentScreen(file, 3).bytes.toString()).toBe("three\nfour\n>>> ")
    expect(recentScreen(file, 99).bytes.toString()).toBe("one\ntwo\nthree\nfour\n>>> ")
    writeFileSync(file, "a\nb\n")
    expect(recentScreen(file, 1).bytes.toString()).toBe("b\n")
    expect(recentScreen(file, 1).end).toBe(4)
  })

  it("of a missing or empty file is nothing", () => {
    expect(recentScreen(join(dir, "none"), 24).bytes.length).toBe(0)
    writeFileSync(file, "")
    expect(recentScreen(file, 24)).toEqual({ bytes: Buffer.alloc(0), end: 0 })
  })

  it("of a long log starts at a whole line within the last 64 KiB", () => {
    writeFileSync(file, `${"x".repeat(70 * 1024)}\nlast\n`)
    expect(recentScreen(file, 24).bytes.toString()).toBe("last\n")
  })
})

describe("followOutput", () => {
  it("sends what is written after the offset, in order", async () => {
    writeFileSync(file, "before\n")
    let got = ""
    const stop = followOutput(file, 7, {
      send: (b) => (got += b.toString()),
      buffered: () => 0,
      dropped: () => {},
    })
    appendFileSync(file, "one\n")
    await until("one", () => got === "one\n")
    appendFileSync(file, "two\n")
    await until("two", () => got === "one\ntwo\n")
    stop()
    appendFileSync(file, "after stop\n")
    await new Promise((r) => setTimeout(r, 50))
    expect(got).toBe("one\ntwo\n")
  })

  it("a client over the limit skips to the end, and hears how much it missed once it takes again", async () => {
    writeFileSync(file, "")
    let sent = 0
    let waiting = CLIENT_BUFFER_LIMIT // the client takes nothing
    const dropped: Array<number> = []
    const stop = followOutput(file, 0, {
      send: (b) => {
        sent += b.length
      },
      buffered: () => waiting,
      dropped: (n) => dropped.push(n),
    })
    appendFileSync(file, "y".repeat(300_000))
    await new Promise((r) => setTimeout(r, 100))
    expect(sent).toBe(0)
    waiting = 0 // it reads again
    await until("the notice", () => dropped.length > 0)
    expect(dropped).toEqual([300_000])
    appendFileSync(file, "z\n")
    await until("new output", () => sent === 2)
    stop()
  })

  it("a cleared log is followed from its start", async () => {
    writeFileSync(file, "old old old\n")
    let got = ""
    const stop = followOutput(file, 12, {
      send: (b) => (got += b.toString()),
      buffered: () => 0,
      dropped: () => {},
    })
    writeFileSync(file, "")
    appendFileSync(file, "new\n")
    await until("new", () => got.endsWith("new\n"))
    stop()
  })
})
