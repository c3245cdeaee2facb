import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { baseHash, journalHeader, journalPathOf, recordChanges } from "../../src/state/journal.js"
import { type DaemonRecord, emptyState, type PersistentState } from "../../src/state/State.js"
import { JOURNAL_MIN_BYTES, makeStateStore } from "../../src/state/StateStore.js"
import { readStateFile, type StateWriter, syncWriter } from "../../src/state/stateFile.js"
import { withFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"
import { record, tempDir } from "./fixtures.js"

const withDaemons = (s: PersistentState, daemons: Record<string, DaemonRecord>): PersistentState => ({
  ...s,
  daemons,
})

/** The journal's lines after its header, parsed. */
const journalLines = (file: string) =>
  fs
    .readFileSync(journalPathOf(file), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .slice(1)
    .map((l) => JSON.parse(l) as { set: Record<string, DaemonRecord>; removed: Array<string> })

describe("the changes a journal line can say", () => {
  const a = record("app/a")
  const b = record("app/b")
  const before = withDaemons(emptyState(), { "app/a": a, "app/b": b })

  it("are the daemon records that changed, by identity, and those removed", () => {
    const a2 = record("app/a", 1)
    const c = record("app/c")
    const after = withDaemons(before, { "app/a": a2, "app/c": c })
    expect(recordChanges(before, after, new Set())).toEqual({
      set: [
        ["app/a", a2],
        ["app/c", c],
      ],
      removed: ["app/b"],
    })
    expect(recordChanges(before, withDaemons(before, { ...before.daemons }), new Set())).toEqual({
      set: [],
      removed: [],
    })
  })

  it("include the records set in place, which identity cannot see", () => {
    const daemons = { ...before.daemons }
    const state = withDaemons(before, daemons)
    const written = { ...state }
    daemons["app/a"] = record("app/a", 7)
    expect(recordChanges(written, state, new Set(["app/a"]))?.set).toEqual([["app/a", daemons["app/a"]]])
    delete daemons["app/b"]
    expect(recordChanges(written, state, new Set(["app/b"]))?.removed).toEqual(["app/b"])
  })

  it("are none when anything else changed: the disabled list, the namespaces, the cron marks", () => {
    expect(recordChanges(before, { ...before, disabled: ["app/a"] }, new Set())).toBeUndefined()
    expect(recordChanges(before, { ...before, namespaces: { app: "/srv" } }, new Set())).toBeUndefined()
    expect(recordChanges(before, { ...before, cron: { "app/a": 1 } }, new Set())).toBeUndefined()
  })
})

/** A store on a fresh file in a temp directory, its first (whole) write done: app/a. */
const storeOfOne = Effect.gen(function* () {
  const dir = yield* tempDir
  const file = nodePath.join(dir, "state.json")
  const store = yield* withFakeStorageHealth(makeStateStore(file))
  yield* store.update((s) => withDaemons(s, { "app/a": record("app/a") }))
  return { dir, file, store }
})

describe("the state store's journal", () => {
  it.scoped("a change of daemon records only is one appended line; anything else a new state file", () =>
    Effect.gen(function* () {
      const { dir, file, store } = yield* storeOfOne
      expect(fs.readdirSync(dir)).toEqual(["state.json"]) // the first write is whole
      const base = fs.readFileSync(file, "utf8")

      yield* store.update((s) => withDaemons(s, { ...s.daemons, "app/b": record("app/b") }))
      yield* store.recordDaemon("app/a", record("app/a", 3))
      yield* store.sync
      expect(fs.readFileSync(file, "utf8")).toBe(base)
      const journal = fs.readFileSync(journalPathOf(file), "utf8")
      expect(journal.startsWith(journalHeader(baseHash(base)))).toBe(true)
      expect(journalLines(file)).toEqual([
        { set: { "app/b": record("app/b") }, removed: [] },
        { set: { "app/a": record("app/a", 3) }, removed: [] },
      ])
      expect(readStateFile(file)).toEqual({ state: yield* store.get, warnings: [] })

      yield* store.update((s) => ({ ...s, disabled: ["app/b"] }))
      const folded = readStateFile(file)
      expect(folded.state.disabled).toEqual(["app/b"])
      expect(folded.state.daemons["app/a"]?.retry_count).toBe(3)
      // the journal left behind names the earlier state file: never applied to this one
      expect(JSON.parse(fs.readFileSync(file, "utf8")).daemons["app/a"].retry_count).toBe(3)

      // the next line starts a journal of the new state file
      yield* store.update((s) => {
        const { "app/b": _, ...rest } = s.daemons
        return withDaemons(s, rest)
      })
      expect(fs.readFileSync(journalPathOf(file), "utf8").split("\n")[0]).toBe(
        journalHeader(baseHash(fs.readFileSync(file, "utf8"))).trimEnd(),
      )
      expect(journalLines(file)).toEqual([{ set: {}, removed: ["app/b"] }])
      expect(Object.keys(readStateFile(file).state.daemons)).toEqual(["app/a"])
    }),
  )

  it.scoped(
    "a journal an earlier version wrote (its base named by SHA-1, `journal: 1`) is still applied",
    () =>
      Effect.gen(function* () {
        const { file, store } = yield* storeOfOne
        yield* store.recordDaemon("app/a", record("app/a", 4))
        yield* store.sync
        const base = fs.readFileSync(file, "utf8")
        const [header, ...rest] = fs.readFileSync(journalPathOf(file), "utf8").split("\n")
        expect(JSON.parse(header!)).toEqual({ journal: 2, base: baseHash(base) })
        const asEarlier = (hash: string) =>
          fs.writeFileSync(
            journalPathOf(file),
            [JSON.stringify({ journal: 1, base: hash }), ...rest].join("\n"),
          )
        asEarlier(createHash("sha1").update(base).digest("hex"))
        expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(4)
        // one of another base is not
        asEarlier(createHash("sha1").update(`${base} `).digest("hex"))
        expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(0)
      }),
  )

  it("names a base by a hash that tells bases apart", () => {
    const bases = new Set<string>()
    for (let i = 0; i < 2000; i++) bases.add(baseHash(`{"daemons":{"app/a":{"retry_count":${i}}}}`))
    expect(bases.size).toBe(2000)
    expect(baseHash("ab")).not.toBe(baseHash("ba"))
    expect(baseHash("")).toMatch(/^[0-9a-f]{16}$/)
  })

  it.scoped("a line cut short (a crash during the append) is not applied, and nothing is reported", () =>
    Effect.gen(function* () {
      const { file, store } = yield* storeOfOne
      yield* store.recordDaemon("app/a", record("app/a", 1))
      yield* store.sync
      const whole = fs.readFileSync(journalPathOf(file), "utf8")
      fs.appendFileSync(journalPathOf(file), '{"set":{"app/a":{"id":"app/a","defin')
      expect(readStateFile(file)).toMatchObject({ warnings: [] })
      expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(1)
      expect(fs.readFileSync(journalPathOf(file), "utf8").startsWith(whole)).toBe(true)

      // the next supervisor's first write is whole: nothing is appended after the torn line
      const next = yield* withFakeStorageHealth(makeStateStore(file))
      yield* next.recordDaemon("app/a", record("app/a", 2))
      yield* next.sync
      expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(2)
      yield* next.recordDaemon("app/a", record("app/a", 3))
      yield* next.sync
      expect(journalLines(file)).toEqual([{ set: { "app/a": record("app/a", 3) }, removed: [] }])
      expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(3)
    }),
  )

  it.scoped("a journal of records that do not decode is ignored with a warning; the state file is kept", () =>
    Effect.gen(function* () {
      const { dir, file } = yield* storeOfOne
      fs.writeFileSync(
        journalPathOf(file),
        `${journalHeader(baseHash(fs.readFileSync(file, "utf8")))}{"set":{"app/a":{"id":7}},"removed":[]}\n`,
      )
      const read = readStateFile(file)
      expect(read.state.daemons["app/a"]).toEqual(record("app/a"))
      expect(read.warnings).toEqual([
        expect.stringMatching(/state journal .*state\.json\.journal .* not valid/),
      ])
      expect(fs.readdirSync(dir).sort()).toEqual(["state.json", "state.json.journal"])
    }),
  )

  it.scoped("grows until it holds more than the state file (at least 64 KiB), then is folded into it", () =>
    Effect.gen(function* () {
      const { file, store } = yield* storeOfOne
      const first = fs.readFileSync(file, "utf8")
      let folds = 0
      for (let i = 1; i <= 400; i++) {
        yield* store.recordDaemon("app/a", record("app/a", i))
        yield* store.sync
        const journal = fs.statSync(journalPathOf(file)).size
        expect(journal).toBeLessThan(JOURNAL_MIN_BYTES + 1024)
        if (fs.readFileSync(file, "utf8") !== first && folds === 0) folds = i
        expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(i)
      }
      expect(folds).toBeGreaterThan(1)
    }),
  )

  it.scoped("a state file or journal changed by anyone else is written whole again at the next change", () =>
    Effect.gen(function* () {
      const { file, store } = yield* storeOfOne
      yield* store.recordDaemon("app/a", record("app/a", 1))
      yield* store.sync
      fs.writeFileSync(file, "garbage")
      yield* store.recordDaemon("app/a", record("app/a", 2))
      yield* store.sync
      expect(readStateFile(file)).toMatchObject({ warnings: [] })
      expect(JSON.parse(fs.readFileSync(file, "utf8")).daemons["app/a"].retry_count).toBe(2)

      yield* store.recordDaemon("app/a", record("app/a", 3))
      yield* store.sync
      fs.appendFileSync(journalPathOf(file), "{}\n")
      yield* store.recordDaemon("app/a", record("app/a", 4))
      yield* store.sync
      expect(JSON.parse(fs.readFileSync(file, "utf8")).daemons["app/a"].retry_count).toBe(4)
      expect(readStateFile(file)).toMatchObject({ warnings: [] })
    }),
  )

  it.scoped("after a failed write the next one is a whole state file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const calls: Array<{ readonly file: string; readonly append: boolean }> = []
      let failNext = false
      const writer: StateWriter = (f, text, append) =>
        Effect.suspend(() => {
          calls.push({ file: nodePath.basename(f), append: append === true })
          if (failNext) {
            failNext = false
            // half of the line reaches the disk, as a full disk leaves it
            if (append) fs.appendFileSync(f, text.slice(0, text.length >> 1))
            return Effect.fail(new Error("ENOSPC"))
          }
          return syncWriter(f, text, append)
        })
      const store = yield* withFakeStorageHealth(makeStateStore(file, writer))
      yield* store.update((s) => withDaemons(s, { "app/a": record("app/a") }))
      yield* store.recordDaemon("app/a", record("app/a", 1))
      yield* store.sync
      yield* store.recordDaemon("app/a", record("app/a", 2))
      yield* store.sync
      failNext = true
      yield* store.recordDaemon("app/a", record("app/a", 3))
      yield* store.sync // returns after the failed attempt: a full disk never blocks a command
      yield* store.sync // the next attempt
      expect(calls).toEqual([
        { file: "state.json", append: false },
        { file: "state.json.journal", append: false },
        { file: "state.json.journal", append: true },
        { file: "state.json.journal", append: true },
        { file: "state.json", append: false },
      ])
      expect(readStateFile(file)).toMatchObject({ warnings: [] })
      expect(readStateFile(file).state.daemons["app/a"]?.retry_count).toBe(3)
    }),
  )
})
