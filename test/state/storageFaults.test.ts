import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Queue, TestClock } from "effect"
import { guardOutputFile } from "../../src/host/logSink.js"
import { makeStateStore } from "../../src/state/StateStore.js"
import { StorageHealth, StorageHealthLive } from "../../src/state/StorageHealth.js"
import { asyncWriter, readStateFile } from "../../src/state/stateFile.js"
import { injectedFault } from "../../src/state/storageFaults.js"
import { makeFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"

// A full disk, a read-only file system: injected at the file-system layer (SUPERVISOR_FAULTS_FILE),
// so that these run without root. test/faults/storage*.test.ts does the same through the built CLI.

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-storage-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

/** Injects `code` for every write under `prefix` until the returned function is called. */
const inject = (dir: string, code: string, prefix: string) => {
  const faults = nodePath.join(dir, "faults")
  fs.writeFileSync(faults, `${code} ${prefix}\n`)
  process.env.SUPERVISOR_FAULTS_FILE = faults
  return () => fs.writeFileSync(faults, "")
}

afterEach(() => {
  delete process.env.SUPERVISOR_FAULTS_FILE
})

/** Polls `f` (an effect) until it holds, for at most 5 s of real time. */
const eventually = (what: string, f: () => boolean) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 5000
    while (!f()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
    }
  })

describe("storage faults", () => {
  it("an injected fault applies to writes under its prefix only, and ends when its line is gone", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-storage-"))
    try {
      const end = inject(dir, "ENOSPC", "/srv/state/logs/")
      expect(injectedFault("/srv/state/logs/app--web.idx")?.code).toBe("ENOSPC")
      expect(injectedFault("/srv/state/state.json")).toBeUndefined()
      end()
      expect(injectedFault("/srv/state/logs/app--web.idx")).toBeUndefined()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.scopedLive("a state file on a full disk: counted, retried alone, and written once there is room", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const health = yield* makeFakeStorageHealth()
      const storageProblems = health.problems
      const store = yield* makeStateStore(file, asyncWriter, "20 millis", "50 millis").pipe(
        Effect.provideService(StorageHealth, health),
      )
      yield* store.update((s) => ({ ...s, disabled: ["app/a"] }))
      const end = inject(dir, "ENOSPC", file)
      // the update returns (it does not wait for a disk without room); memory holds the change
      yield* store.update((s) => ({ ...s, disabled: ["app/a", "app/b"] }))
      expect((yield* store.get).disabled).toEqual(["app/a", "app/b"])
      expect(readStateFile(file).state.disabled).toEqual(["app/a"])
      const [problem] = storageProblems()
      expect(problem).toMatchObject({ area: "state", file, code: "ENOSPC" })
      expect(problem!.message).toContain("free space on the file system of")
      // retried on its own: the count grows while the fault lasts
      yield* eventually("retries", () => (storageProblems()[0]?.failed_writes ?? 0) >= 3)
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
      end()
      yield* eventually("the state written", () => readStateFile(file).state.disabled.length === 2)
      // cleared just after the file is renamed into place
      yield* eventually("the problem cleared", () => storageProblems().length === 0)
    }),
  )

  it.scopedLive("a read-only state file: the error and the fix are said, nothing is lost", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      const health = yield* makeFakeStorageHealth()
      const storageProblems = health.problems
      const store = yield* makeStateStore(file, asyncWriter, "20 millis", "50 millis").pipe(
        Effect.provideService(StorageHealth, health),
      )
      const end = inject(dir, "EROFS", file)
      yield* store.update((s) => ({ ...s, namespaces: { app: "/srv/app" } }))
      expect(storageProblems()[0]!.message).toContain("is read-only: remount it read-write")
      end()
      yield* store.update((s) => s)
      expect(readStateFile(file).state.namespaces).toEqual({ app: "/srv/app" })
      expect(storageProblems()).toEqual([])
    }),
  )

  it.scopedLive("a corrupt state file is kept aside and said until the supervisor restarts", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = nodePath.join(dir, "state.json")
      fs.writeFileSync(file, "\u0000garbage{")
      const health = yield* makeFakeStorageHealth()
      yield* makeStateStore(file).pipe(Effect.provideService(StorageHealth, health))
      const [problem] = health.problems()
      expect(problem).toMatchObject({ area: "state", file, code: "corrupt", failed_writes: 0 })
      const aside = fs.readdirSync(dir).find((f) => f.startsWith("state.json.corrupt-"))
      expect(fs.readFileSync(nodePath.join(dir, aside!), "utf8")).toBe("\u0000garbage{")
      expect(problem!.message).toContain(nodePath.join(dir, aside!))
    }),
  )

  it.scoped(
    "the supervisor's own log: a failed write is counted, not thrown, and said when it works again",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const log = nodePath.join(dir, "supervisor.log")
        const fd = yield* Effect.acquireRelease(
          Effect.sync(() => fs.openSync(log, "a")),
          (fd) => Effect.sync(() => fs.closeSync(fd)),
        )
        const health = yield* makeFakeStorageHealth()
        const listeners: Array<string> = []
        const stream = {
          write: () => {
            throw new Error("the unguarded stream")
          },
          on: (event: string) => {
            listeners.push(event)
            return stream
          },
        } as unknown as NodeJS.WriteStream
        const guard = guardOutputFile(stream, fd, log)
        expect(guard).toBeDefined()
        stream.write("first\n")
        const end = inject(dir, "ENOSPC", log)
        // before the services exist: kept, and counted once a health is attached
        expect(() => stream.write("lost 1\n")).not.toThrow()
        guard!.attach(health)
        stream.write("lost 2\n")
        expect(health.problems()).toMatchObject([{ area: "supervisor_log", file: log, failed_writes: 2 }])
        end()
        stream.write("back\n")
        const lines = fs.readFileSync(log, "utf8").trimEnd().split("\n")
        expect(lines[0]).toBe("first")
        expect(lines[1]).toBe("back")
        expect(lines[2]).toMatch(
          /^\[supervisor\] 2 write\(s\) to .*supervisor\.log failed from .* \(ENOSPC\); it is writable again$/,
        )
        expect(listeners).toContain("error")
        expect(health.problems()).toEqual([])
      }),
  )

  it.scoped("a file that starts failing and recovers is one change each way, with its facts", () =>
    Effect.gen(function* () {
      const health = yield* makeFakeStorageHealth(() => 1000)
      const changes = yield* health.subscribe
      const file = "/srv/state/logs/app--web.idx"
      const full = Object.assign(new Error("no space"), { code: "ENOSPC" })
      health.failed("logs", file, full)
      health.failed("logs", file, full) // the same problem again: counted, not a new change
      expect(health.logProblemOf("app--web")).toMatchObject({ file, failed_writes: 2 })
      expect(health.ok(file)).toMatchObject({ file, code: "ENOSPC", failed_writes: 2, since: 1000 })
      const got = [...(yield* Queue.takeAll(changes))]
      expect(got).toEqual([
        {
          _tag: "Failing",
          operation: "write",
          problem: {
            area: "logs",
            file,
            code: "ENOSPC",
            message: `cannot write the log file ${file} (ENOSPC); the disk is full: free space on the file system of /srv/state/logs`,
            since: 1000,
            failed_writes: 1,
          },
        },
        {
          _tag: "Recovered",
          at: 1000,
          problem: expect.objectContaining({ file, code: "ENOSPC", failed_writes: 2 }),
        },
      ])
      expect(health.problems()).toEqual([])
    }),
  )

  it.scoped(
    "a failing file nobody writes recovers through its probe, tried every second by the live service",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = nodePath.join(dir, "app--web.out")
        const end = inject(dir, "EROFS", dir)
        const health = yield* StorageHealth
        const changes = yield* health.subscribe
        const probed: Array<string> = []
        health.failed("logs", file, injectedFault(file), (over) => probed.push(over.code))
        yield* TestClock.adjust("1 second")
        expect(probed).toEqual([]) // still read-only: the probe is not even tried
        expect(health.problems()).toHaveLength(1)
        end()
        yield* TestClock.adjust("1 second")
        expect(probed).toEqual(["EROFS"])
        expect(health.problems()).toEqual([])
        expect([...(yield* Queue.takeAll(changes))].map((c) => c._tag)).toEqual(["Failing", "Recovered"])
      }).pipe(Effect.provide(StorageHealthLive)),
  )

  it("output that is not a regular file (a terminal, a pipe, /dev/null) is left alone", () => {
    const stream = { write: () => true, on: () => stream } as unknown as NodeJS.WriteStream
    const pipe = fs.openSync("/dev/null", "w")
    try {
      expect(guardOutputFile(stream, pipe, "/dev/null")).toBeUndefined()
    } finally {
      fs.closeSync(pipe)
    }
  })
})
