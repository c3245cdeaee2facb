import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { emptyState, type PersistentState } from "../../src/state/State.js"
import { makeStateStore } from "../../src/state/StateStore.js"
import {
  asyncWriter,
  readStateFile,
  type StateWriter,
  stateText,
  syncWriter,
  writeFileAtomic,
} from "../../src/state/stateFile.js"
import { withFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"
import { record, tempDir } from "./fixtures.js"

const sample = (): PersistentState => ({
  version: 1,
  cron: {},
  scaled: {},
  daemons: {
    "app/web": record("app/web", 2),
    "app/db": {
      ...record("app/db"),
      status: { type: "errored", exit_code: 1, signal: null, message: "boom" },
    },
  },
  disabled: ["app/old"],
  namespaces: { app: "/srv/app" },
  projects: ["/srv/app"],
})

/** The temp file name writeFileAtomic uses in this process. */
const tempFileOf = (file: string) =>
  nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}.${process.pid}.tmp`)

const asideFiles = (dir: string) => fs.readdirSync(dir).filter((f) => /^state\.json\.corrupt-\d+$/.test(f))

/** A writer held at a gate: the test decides when each write reaches the disk. */
const gatedWriter = () => {
  const gates: Array<Deferred.Deferred<void>> = []
  const texts: Array<string> = []
  const gated: StateWriter = (f, text, append) =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      gates.push(gate)
      yield* Deferred.await(gate)
      texts.push(text)
      yield* syncWriter(f, text, append)
    })
  return { gates, texts, gated }
}

describe("the state file's text", () => {
  it("is the state's JSON, one line per daemon record; a changed record is written anew", () => {
    const state = sample()
    const text = stateText(state)
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(state)))
    const lines = text.split("\n")
    expect(lines.filter((l) => l.startsWith('    "app/'))).toHaveLength(2)
    expect(text.endsWith("}\n")).toBe(true)
    // the same record object again, and one replaced by a changed copy
    const next: PersistentState = {
      ...state,
      daemons: { ...state.daemons, "app/web": { ...record("app/web", 3), pid: 5151 } },
    }
    const parsed = JSON.parse(stateText(next)) as PersistentState
    expect(parsed.daemons["app/web"]?.pid).toBe(5151)
    expect(parsed.daemons["app/web"]?.retry_count).toBe(3)
    expect(parsed.daemons["app/db"]).toEqual(JSON.parse(JSON.stringify(state.daemons["app/db"])))
    expect(JSON.parse(stateText(emptyState()))).toEqual(emptyState())
  })
})

describe("StateStore", () => {
  it.scoped("round trip: what update writes, a new store reads back (file 0600, dir 0700)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "nested", "state.json")
      const store = yield* withFakeStorageHealth(makeStateStore(file))
      expect(store.warnings).toEqual([])
      expect(yield* store.get).toEqual(emptyState())
      expect(fs.existsSync(file)).toBe(false) // nothing written before the first update

      const written = yield* store.update(() => sample())
      expect(written).toEqual(sample())
      expect(yield* store.get).toEqual(sample())
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(sample())
      expect(fs.readFileSync(file, "utf8").endsWith("}\n")).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.statSync(nodePath.dirname(file)).mode & 0o777).toBe(0o700)

      const again = yield* withFakeStorageHealth(makeStateStore(file))
      expect(again.warnings).toEqual([])
      expect(yield* again.get).toEqual(sample())
      expect(readStateFile(file)).toEqual({ state: sample(), warnings: [] })
    }),
  )

  it.scoped("writeFileAtomic replaces the file by rename: readers of the old file see it whole", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      writeFileAtomic(file, "one\n")
      const before = fs.statSync(file).ino
      const fd = fs.openSync(file, "r")
      try {
        writeFileAtomic(file, "two, longer\n")
        // Written to a new file that was renamed over the old one, never in place.
        expect(fs.statSync(file).ino).not.toBe(before)
        const buf = Buffer.alloc(64)
        const n = fs.readSync(fd, buf, 0, buf.length, 0)
        expect(buf.subarray(0, n).toString()).toBe("one\n")
      } finally {
        fs.closeSync(fd)
      }
      expect(fs.readFileSync(file, "utf8")).toBe("two, longer\n")
      expect(fs.readdirSync(dir)).toEqual(["state.json"]) // no temp file left behind
    }),
  )

  it.scoped("a write interrupted before the rename leaves the previous content intact", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const store = yield* withFakeStorageHealth(makeStateStore(file))
      yield* store.update(() => sample())
      const previous = fs.readFileSync(file, "utf8")

      // A crash in the middle of the temp write: half a temp file is left, here and from another pid.
      fs.writeFileSync(tempFileOf(file), previous.slice(0, previous.length / 2))
      const otherPid = nodePath.join(dir, ".state.json.99999999.tmp")
      fs.writeFileSync(otherPid, "{")
      expect(fs.readFileSync(file, "utf8")).toBe(previous)
      const reopened = yield* withFakeStorageHealth(makeStateStore(file))
      expect(reopened.warnings).toEqual([])
      expect(yield* reopened.get).toEqual(sample())

      // The next write reuses (truncates) the stray temp file of its pid and renames it.
      const next = { ...sample(), disabled: [] }
      yield* reopened.update(() => next)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(next)
      expect(fs.existsSync(tempFileOf(file))).toBe(false)
      expect(fs.readFileSync(otherPid, "utf8")).toBe("{") // another writer's temp file is not touched
    }),
  )

  it.scoped("a temp write that fails leaves the file as it was and is not fatal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const store = yield* withFakeStorageHealth(makeStateStore(file))
      yield* store.update(() => sample())
      const previous = fs.readFileSync(file, "utf8")

      fs.mkdirSync(tempFileOf(file)) // the temp file cannot be opened
      expect(() => writeFileAtomic(file, "{}")).toThrow()
      expect(fs.readFileSync(file, "utf8")).toBe(previous)

      // Through the store: the error is logged, the in-memory state moves on, the file keeps its content.
      const next = { ...sample(), namespaces: {} }
      expect(yield* store.update(() => next)).toEqual(next)
      expect(yield* store.get).toEqual(next)
      expect(fs.readFileSync(file, "utf8")).toBe(previous)

      fs.rmdirSync(tempFileOf(file))
      yield* store.update((s) => s)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(next)
    }),
  )

  const corrupt = (name: string, content: (valid: string) => string | Buffer) =>
    it.scoped(`${name} is reported, set aside and replaced by an empty state`, () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "state.json")
        writeFileAtomic(file, `${JSON.stringify(sample(), null, 2)}\n`)
        const bad = content(fs.readFileSync(file, "utf8"))
        fs.writeFileSync(file, bad)

        const store = yield* withFakeStorageHealth(makeStateStore(file))
        expect(yield* store.get).toEqual(emptyState())
        expect(store.warnings).toHaveLength(1)
        const [aside] = asideFiles(dir)
        expect(aside).toBeDefined()
        const asidePath = nodePath.join(dir, aside!)
        expect(store.warnings[0]).toBe(
          `the state file ${file} was not valid (truncated or not valid JSON); it was kept as ${asidePath} and the supervisor starts with an empty state: look into that file, then delete it`,
        )
        expect(fs.readFileSync(asidePath)).toEqual(Buffer.from(bad))
        expect(fs.existsSync(file)).toBe(false)

        // The store works on: the next update writes a fresh, readable file.
        yield* store.update((s) => ({ ...s, disabled: ["app/x"] }))
        expect(readStateFile(file)).toEqual({ state: { ...emptyState(), disabled: ["app/x"] }, warnings: [] })
      }),
    )

  corrupt("a truncated state file", (valid) => valid.slice(0, Math.floor(valid.length / 2)))
  corrupt("an empty state file", () => "")
  corrupt("a garbage state file", () => Buffer.from([0x00, 0xff, 0xfe, 0x7b, 0x0a, 0x00]))
  corrupt("a JSON state file of the wrong shape", () => JSON.stringify({ version: 2, daemons: [] }))

  it.scoped("a missing file is an empty state without warnings", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = yield* withFakeStorageHealth(makeStateStore(nodePath.join(dir, "state.json")))
      expect(store.warnings).toEqual([])
      expect(yield* store.get).toEqual(emptyState())
    }),
  )

  it.scoped("a state path that cannot be read is reported and not fatal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      fs.mkdirSync(file)
      const store = yield* withFakeStorageHealth(makeStateStore(file))
      expect(store.warnings).toHaveLength(1)
      expect(store.warnings[0]).toMatch(
        new RegExp(`^cannot read ${file}: .*EISDIR.*; starting with an empty state$`),
      )
      expect(yield* store.get).toEqual(emptyState())
      expect(yield* store.update((s) => ({ ...s, disabled: ["a"] }))).toMatchObject({ disabled: ["a"] })
      expect(fs.statSync(file).isDirectory()).toBe(true)
    }),
  )

  it.scoped("100 concurrent updates are serialised: no increment is lost", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const store = yield* withFakeStorageHealth(makeStateStore(file))
      yield* store.update((s) => ({ ...s, daemons: { "app/counter": record("app/counter", 0) } }))
      const increment = store.update((s) => {
        const current = s.daemons["app/counter"]!
        return {
          ...s,
          daemons: { ...s.daemons, "app/counter": { ...current, retry_count: current.retry_count + 1 } },
        }
      })
      const results = yield* Effect.all(
        Array.from({ length: 100 }, () => increment),
        { concurrency: "unbounded" },
      )
      const seen = results.map((s) => s.daemons["app/counter"]!.retry_count).sort((a, b) => a - b)
      expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
      expect((yield* store.get).daemons["app/counter"]!.retry_count).toBe(100)
      expect(readStateFile(file).state.daemons["app/counter"]!.retry_count).toBe(100)
      expect(
        (yield* (yield* withFakeStorageHealth(makeStateStore(file))).get).daemons["app/counter"]!.retry_count,
      ).toBe(100)
    }),
  )

  it.scopedLive(
    "the async writer (the supervisor's): 100 concurrent updates share writes, none is lost",
    () =>
      Effect.gen(function* () {
        const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-state-"))
        const file = nodePath.join(dir, "state.json")
        let writes = 0
        const counting: StateWriter = (f, text, append) =>
          Effect.sync(() => writes++).pipe(Effect.zipRight(asyncWriter(f, text, append)))
        const store = yield* withFakeStorageHealth(makeStateStore(file, counting))
        yield* Effect.all(
          Array.from({ length: 100 }, (_, i) =>
            store.update((s) => ({ ...s, daemons: { ...s.daemons, [`app/d${i}`]: record(`app/d${i}`) } })),
          ),
          { concurrency: "unbounded" },
        )
        expect(Object.keys(readStateFile(file).state.daemons)).toHaveLength(100)
        expect(writes).toBeLessThan(100)
        expect(fs.statSync(file).mode & 0o777).toBe(0o600)
        expect(fs.readdirSync(dir)).toEqual(["state.json"])
        fs.rmSync(dir, { recursive: true, force: true })
      }),
  )

  it.scopedLive(
    "record applies at once and writes in the background; sync waits until every change is on disk",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "state.json")
        const { gates, texts, gated } = gatedWriter()
        const store = yield* withFakeStorageHealth(makeStateStore(file, gated))
        const waitForGate = (n: number) =>
          Effect.gen(function* () {
            while (gates.length < n) yield* Effect.sleep("1 millis")
            return gates[n - 1]!
          })
        yield* store.sync // nothing to wait for

        const first = yield* store.record((s) => ({ ...s, disabled: ["a"] }))
        expect(first.disabled).toEqual(["a"])
        expect((yield* store.get).disabled).toEqual(["a"])
        const gate1 = yield* waitForGate(1)
        expect(fs.existsSync(file)).toBe(false) // not written yet: record did not wait

        // Made while the first write is under way: the same writer writes it next.
        yield* store.record((s) => ({ ...s, disabled: [...s.disabled, "b"] }))
        const synced = yield* Effect.fork(store.sync)
        yield* Deferred.succeed(gate1, undefined)
        const gate2 = yield* waitForGate(2)
        expect(JSON.parse(fs.readFileSync(file, "utf8")).disabled).toEqual(["a"])
        expect(synced.unsafePoll()).toBeNull() // "b" is not on disk yet: sync still waits
        yield* Deferred.succeed(gate2, undefined)
        yield* Fiber.join(synced)
        expect(JSON.parse(fs.readFileSync(file, "utf8")).disabled).toEqual(["a", "b"])
        expect(texts).toHaveLength(2)

        // update is record + sync
        const updated = store.update((s) => ({ ...s, disabled: [] }))
        const fiber = yield* Effect.fork(updated)
        yield* Deferred.succeed(yield* waitForGate(3), undefined)
        expect((yield* Fiber.join(fiber)).disabled).toEqual([])
        expect(readStateFile(file).state.disabled).toEqual([])
      }),
  )

  it.scoped(
    "a writer that dies is logged like a failed write: sync returns, the next change is written",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "state.json")
        let calls = 0
        const dying: StateWriter = (f, text, append) =>
          Effect.suspend(() => {
            calls++
            if (calls === 1) throw new Error("a bug in the writer")
            return syncWriter(f, text, append)
          })
        const store = yield* withFakeStorageHealth(makeStateStore(file, dying))
        yield* store.update((s) => ({ ...s, disabled: ["a"] }))
        expect(fs.existsSync(file)).toBe(false)
        yield* store.update((s) => ({ ...s, disabled: ["a", "b"] }))
        expect(readStateFile(file).state.disabled).toEqual(["a", "b"])
        expect(calls).toBe(2)
      }),
  )

  it.scopedLive(
    "a fiber interrupted as it records a change cannot stop the writer: the change is written",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "state.json")
        const store = yield* withFakeStorageHealth(makeStateStore(file, asyncWriter))
        // The interruption arrives while `record` runs: it takes effect at the next step, the very
        // one that would start the writer.
        const recording = yield* Effect.fork(
          Effect.withFiberRuntime<unknown>((fiber) =>
            store.record((s) => {
              fiber.unsafeInterruptAsFork(fiber.id())
              return { ...s, disabled: ["x"] }
            }),
          ),
        )
        yield* Fiber.await(recording)
        expect((yield* store.get).disabled).toEqual(["x"])
        yield* store.sync.pipe(
          Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("sync never returned") }),
        )
        expect(readStateFile(file).state.disabled).toEqual(["x"])
      }),
  )

  it.scoped(
    "changes that keep coming while nobody waits share a write after a pause; a sync cuts the pause short",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "state.json")
        const { gates, texts, gated } = gatedWriter()
        const store = yield* withFakeStorageHealth(makeStateStore(file, gated, "20 millis"))
        // lets the writer run as far as it can without the clock moving
        const settle = Effect.repeatN(Effect.yieldNow(), 200)
        const disabled = (text: string | undefined) => JSON.parse(text ?? "{}").disabled

        yield* store.record((s) => ({ ...s, disabled: ["a"] }))
        yield* settle
        expect(gates).toHaveLength(1) // the first change of a burst is written at once
        yield* store.record((s) => ({ ...s, disabled: [...s.disabled, "b"] }))
        yield* store.record((s) => ({ ...s, disabled: [...s.disabled, "c"] }))
        yield* Deferred.succeed(gates[0]!, undefined)
        yield* settle
        expect(gates).toHaveLength(1) // b and c wait for the pause to end
        yield* TestClock.adjust("19 millis")
        yield* settle
        expect(gates).toHaveLength(1)
        yield* TestClock.adjust("1 millis")
        yield* settle
        expect(gates).toHaveLength(2) // one write for both
        yield* store.record((s) => ({ ...s, disabled: [...s.disabled, "d"] }))
        yield* Deferred.succeed(gates[1]!, undefined)
        yield* settle
        expect(disabled(texts[1])).toEqual(["a", "b", "c"])
        expect(gates).toHaveLength(2) // d waits for the next pause to end ...
        const synced = yield* Effect.fork(store.sync)
        yield* settle
        expect(gates).toHaveLength(3) // ... unless somebody waits for it
        yield* Deferred.succeed(gates[2]!, undefined)
        yield* Fiber.join(synced)
        expect(disabled(texts[2])).toEqual(["a", "b", "c", "d"])
        expect(readStateFile(file).state.disabled).toEqual(["a", "b", "c", "d"])
      }),
  )
})
