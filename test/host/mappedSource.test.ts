/**
 * src/host/mappedSource.ts: the launcher's bundle source from a private, unlinked copy in the
 * state directory, mapped by the addon (faked here: it reads the copy through the descriptor it is
 * given; the real mapping is tested in test/host/memoryRelief.test.ts and, through the built CLI,
 * test/e2e/mappedSource.test.ts). Whenever it cannot be done, undefined: the launcher reads the
 * bundle into the heap.
 */
import * as fs from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadSourceMapper, mappedSource, type SourceMapper } from "../../src/host/mappedSource.js"
import { memoryReliefFile } from "../../src/host/memoryReliefFile.js"

const root = fs.mkdtempSync(path.join(tmpdir(), "mapped-source-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const WRAPPER = ["(function (a) { ", "\n});"] as const
const EXT4 = 0xef53
const TMPFS = 0x01021994

let n = 0
/** A bundle file and an empty state directory of its own. */
const setup = (body: string | Buffer) => {
  const dir = path.join(root, `case-${n++}`)
  fs.mkdirSync(dir)
  const file = path.join(dir, "host.cjs")
  fs.writeFileSync(file, body)
  const state = path.join(dir, "state")
  return { file, state, env: { SUPERVISOR_STATE_DIR: state } }
}

/** What the addon does, in JavaScript: the file behind `fd` (it must stay readable) as Latin-1. */
const fakeMapper = (calls: Array<number>): SourceMapper => ({
  mapSource: (fd) => {
    calls.push(fd)
    // from the start, as a mapping is, whatever the descriptor's position
    const bytes = Buffer.alloc(fs.fstatSync(fd).size)
    fs.readSync(fd, bytes, 0, bytes.length, 0)
    return bytes.toString("latin1")
  },
})

const leftovers = (state: string) => (fs.existsSync(state) ? fs.readdirSync(state) : [])

describe("mappedSource", () => {
  it("maps the wrapped bundle from a copy in the state directory, unlinked before the mapping", () => {
    const { file, state, env } = setup("module.exports = 1")
    const calls: Array<number> = []
    let seenFiles: ReadonlyArray<string> = []
    const mapper: SourceMapper = {
      mapSource: (fd) => {
        seenFiles = leftovers(state)
        return fakeMapper(calls).mapSource(fd)
      },
    }
    const source = mappedSource(file, WRAPPER, { env, mapper, fsType: () => EXT4 })
    expect(source).toBe("(function (a) { module.exports = 1\n});")
    expect(calls).toHaveLength(1)
    // nothing to find by name: not while mapping, not after
    expect(seenFiles).toEqual([])
    expect(leftovers(state)).toEqual([])
    // the state directory made as the supervisor makes it
    expect(fs.statSync(state).mode & 0o777).toBe(0o700)
  })

  it("undefined without the addon, with SUPERVISOR_MAPPED_SOURCE=0, or when the bundle is not ASCII", () => {
    const ascii = setup("x")
    const calls: Array<number> = []
    expect(mappedSource(ascii.file, WRAPPER, { env: ascii.env, mapper: undefined, fsType: () => EXT4 })).toBe(
      undefined,
    )
    expect(
      mappedSource(ascii.file, WRAPPER, {
        env: { ...ascii.env, SUPERVISOR_MAPPED_SOURCE: "0" },
        mapper: fakeMapper(calls),
        fsType: () => EXT4,
      }),
    ).toBeUndefined()
    // µ in UTF-8: two bytes a Latin-1 string would read as two characters
    const utf8 = setup("const re = /[µ]/")
    expect(
      mappedSource(utf8.file, WRAPPER, { env: utf8.env, mapper: fakeMapper(calls), fsType: () => EXT4 }),
    ).toBe(undefined)
    expect(calls).toEqual([])
  })

  it("undefined when the state directory is memory (tmpfs): a copy there costs what the heap's string does", () => {
    const { file, state, env } = setup("x")
    const calls: Array<number> = []
    expect(
      mappedSource(file, WRAPPER, { env, mapper: fakeMapper(calls), fsType: () => TMPFS }),
    ).toBeUndefined()
    expect(calls).toEqual([])
    expect(leftovers(state)).toEqual([])
  })

  it("undefined, with nothing left behind, when the copy cannot be made or mapped", () => {
    // a file where the state directory should be
    const blocked = setup("x")
    fs.writeFileSync(blocked.state, "")
    expect(
      mappedSource(blocked.file, WRAPPER, { env: blocked.env, mapper: fakeMapper([]), fsType: () => EXT4 }),
    ).toBeUndefined()
    // the addon refuses (say, it has mapped a source already)
    const refused = setup("x")
    const failing: SourceMapper = {
      mapSource: () => {
        throw new Error("mapSource: nothing to map")
      },
    }
    expect(
      mappedSource(refused.file, WRAPPER, { env: refused.env, mapper: failing, fsType: () => EXT4 }),
    ).toBe(undefined)
    expect(leftovers(refused.state)).toEqual([])
    // no bundle at all
    expect(
      mappedSource(path.join(root, "missing.cjs"), WRAPPER, {
        env: refused.env,
        mapper: fakeMapper([]),
        fsType: () => EXT4,
      }),
    ).toBeUndefined()
  })

  it("a copy left by a process of the same pid is replaced", () => {
    const { file, state, env } = setup("y")
    fs.mkdirSync(state)
    fs.writeFileSync(path.join(state, `.source-${process.pid}.cjs`), "stale")
    expect(mappedSource(file, WRAPPER, { env, mapper: fakeMapper([]), fsType: () => EXT4 })).toBe(
      "(function (a) { y\n});",
    )
    expect(leftovers(state)).toEqual([])
  })

  it("loadSourceMapper: the built addon's mapSource; undefined for a file that is not it", () => {
    expect(typeof loadSourceMapper(memoryReliefFile)?.mapSource).toBe("function")
    expect(loadSourceMapper(path.join(root, "missing.node"))).toBeUndefined()
  })
})
