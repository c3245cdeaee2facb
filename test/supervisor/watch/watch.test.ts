import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Ref, SubscriptionRef, TestClock } from "effect"
import type { DaemonDefinition } from "../../../src/domain/DaemonDefinition.js"
import {
  type Backend,
  type BackendEvents,
  type BackendOptions,
  openWatcher,
} from "../../../src/supervisor/watch/fileWatcher.js"
import { configuredSpecs, daemonSpecs, makeWatch } from "../../../src/supervisor/watch/Watch.js"
import {
  awaitRuntime,
  awaitSleepUntil,
  awaitStatus,
  definition,
  type Harness,
  makeHarness,
  startReady,
} from "../helpers.js"

const WEB = "app/web"

interface FakeWatcher {
  readonly roots: ReadonlyArray<string>
  readonly options: BackendOptions
  readonly on: BackendEvents
  closed: boolean
}

/** A backend that records what it is asked to watch and lets the test report changes. */
const fakeBackend = () => {
  const watchers: Array<FakeWatcher> = []
  const backend: Backend = (roots, options, on) => {
    const w: FakeWatcher = { roots, options, on, closed: false }
    watchers.push(w)
    on.ready()
    return {
      close: async () => {
        w.closed = true
      },
    }
  }
  const open = () => watchers.filter((w) => !w.closed)
  /** Waits (yielding, bounded) until `n` watchers are open; returns them. */
  const awaitOpen = (n: number) =>
    Effect.gen(function* () {
      for (let turn = 0; turn < 20_000; turn++) {
        if (open().length === n) return open()
        yield* Effect.yieldNow()
      }
      return yield* Effect.dieMessage(`expected ${n} open watchers, got ${open().length}`)
    })
  return { backend, watchers, open, awaitOpen }
}

const setup = Effect.gen(function* () {
  const h = yield* makeHarness()
  const fake = fakeBackend()
  yield* makeWatch(daemonSpecs(h.sup), {
    restart: (id, detail) => h.sup.restartIfRunning(id, "watch", undefined, detail).pipe(Effect.ignore),
    note: (id, text) => Effect.sync(() => void id).pipe(Effect.zipRight(Effect.succeed(text)), Effect.asVoid),
    backend: fake.backend,
    stateDir: undefined,
    debounce: Duration.seconds(1),
    pollInterval: Duration.millis(500),
  })
  return { h, fake }
})

const spawns = (h: Harness) => Ref.get(h.fake.spawned).pipe(Effect.map((s) => s.length))

/** Reports changes to the files and waits for the debounce to be sleeping. */
const change = (w: FakeWatcher, ...paths: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const now = yield* TestClock.currentTimeMillis
    for (const p of paths) w.on.change(p)
    yield* awaitSleepUntil(now + 1000)
  })

describe("watch restarts", () => {
  it.scoped("a burst of changes restarts a running daemon once; its log says which file", () =>
    Effect.gen(function* () {
      const { h, fake } = yield* setup
      const pid = yield* startReady(h.sup, definition("web", { watch: ["src/**/*.js"] }))
      const [w] = yield* fake.awaitOpen(1)
      if (w === undefined) return yield* Effect.dieMessage("no watcher")
      yield* change(w, "/srv/src/app.js", "/srv/src/app.js", "/srv/src/lib/util.js")
      yield* TestClock.adjust("999 millis")
      expect(yield* spawns(h)).toBe(1)
      yield* TestClock.adjust("1 millis")
      const restarted = yield* awaitRuntime(h.sup, WEB, (r) => r.pid !== null && r.pid !== pid)
      yield* awaitSleepUntil((yield* TestClock.currentTimeMillis) + 3000)
      yield* TestClock.adjust("3 seconds")
      yield* awaitStatus(h.sup, WEB, "running")
      expect(yield* spawns(h)).toBe(2)
      expect(yield* h.fake.running).toEqual([restarted.pid])
      const notes = (yield* h.logLines(WEB)).filter((l) => l.startsWith("[supervisor] restarting"))
      expect(notes).toEqual(["[supervisor] restarting: watch (src/app.js and 1 other file changed)"])
      // a file that no pattern matches changes nothing
      w.on.change("/srv/README.md")
      yield* TestClock.adjust("5 seconds")
      expect(yield* spawns(h)).toBe(2)
    }),
  )

  it.scoped("a stopped or disabled daemon ignores changes", () =>
    Effect.gen(function* () {
      const { h, fake } = yield* setup
      yield* startReady(h.sup, definition("web", { watch: ["*.js"] }))
      const [w] = yield* fake.awaitOpen(1)
      if (w === undefined) return yield* Effect.dieMessage("no watcher")
      yield* h.sup.disable(WEB)
      yield* change(w, "/srv/app.js")
      yield* TestClock.adjust("1 second")
      expect(yield* spawns(h)).toBe(1)
      yield* h.sup.enable(WEB)
      yield* h.sup.stop(WEB)
      yield* change(w, "/srv/app.js")
      yield* TestClock.adjust("1 second")
      expect(yield* spawns(h)).toBe(1)
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopped")
    }),
  )

  it.scoped("a new definition reopens the watcher with its list; a forgotten daemon's is closed", () =>
    Effect.gen(function* () {
      const { h, fake } = yield* setup
      yield* startReady(h.sup, definition("web", { watch: ["*.js"] }))
      yield* fake.awaitOpen(1)
      yield* startReady(h.sup, definition("api"))
      yield* h.sup.stop(WEB)
      yield* startReady(h.sup, definition("web", { watch: ["*.ts"], watch_mode: "poll" }))
      const [w] = yield* fake.awaitOpen(1)
      expect(fake.watchers.length).toBe(2)
      expect(w?.options.poll).toBe(true)
      expect(w?.options.intervalMillis).toBe(500)
      yield* h.sup.stop(WEB)
      expect(yield* h.sup.clean([WEB])).toEqual([WEB])
      yield* fake.awaitOpen(0)
    }),
  )
})

describe("watch specs from the configuration", () => {
  it.scoped(
    "the configured definition's list wins over the one the daemon started with, and follows edits",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const fake = fakeBackend()
        const configured = yield* SubscriptionRef.make<ReadonlyMap<string, DaemonDefinition>>(new Map())
        const watch = yield* makeWatch(configuredSpecs(h.sup, configured.changes), {
          restart: () => Effect.void,
          note: () => Effect.void,
          backend: fake.backend,
          stateDir: undefined,
          debounce: Duration.seconds(1),
          pollInterval: Duration.millis(500),
        })
        yield* startReady(h.sup, definition("web", { watch: ["*.js"] }))
        const [first] = yield* fake.awaitOpen(1)
        const patterns = watch.watched.pipe(Effect.map((specs) => specs.map((w) => [w.id, ...w.patterns])))
        expect(yield* patterns).toEqual([[WEB, "*.js"]])
        // the file now says `src/**/*.ts`: the watcher is reopened without a restart of the daemon
        yield* SubscriptionRef.set(
          configured,
          new Map([[WEB, definition("web", { watch: ["src/**/*.ts"] })]]),
        )
        for (let turn = 0; turn < 20_000 && fake.watchers.length < 2; turn++) yield* Effect.yieldNow()
        yield* fake.awaitOpen(1)
        expect(yield* patterns).toEqual([[WEB, "src/**/*.ts"]])
        expect(fake.watchers.length).toBe(2)
        expect(first?.closed).toBe(true)
        expect(yield* spawns(h)).toBe(1)
        // the file no longer watches anything: the watcher is closed
        yield* SubscriptionRef.set(configured, new Map([[WEB, definition("web")]]))
        yield* fake.awaitOpen(0)
      }),
  )
})

describe("watcher setup", () => {
  /** A backend whose native watching fails before it is ready (as with no inotify watches left). */
  const failingNative = () => {
    const asked: Array<{ poll: boolean; closed: boolean }> = []
    const backend: Backend = (_roots, options, on) => {
      const w = { poll: options.poll, closed: false }
      asked.push(w)
      if (options.poll) on.ready()
      else on.error(Object.assign(new Error("no space left"), { code: "ENOSPC" }))
      return {
        close: async () => {
          w.closed = true
        },
      }
    }
    return { backend, asked }
  }
  const open = (mode: "native" | "auto", backend: Backend) =>
    Effect.gen(function* () {
      const notes: Array<string> = []
      yield* openWatcher(
        { id: WEB, baseDir: "/srv", patterns: ["*.js", "src/[x.js"], mode },
        {
          backend,
          stateDir: undefined,
          pollInterval: Duration.millis(500),
          changed: () => {},
          note: (text) => Effect.sync(() => void notes.push(text)),
        },
      )
      return notes
    })

  it.scoped("auto: native watching that fails falls back to polling, and the log says so", () =>
    Effect.gen(function* () {
      const { backend, asked } = failingNative()
      const notes = yield* open("auto", backend)
      expect(asked).toEqual([
        { poll: false, closed: true },
        { poll: true, closed: false },
      ])
      expect(notes).toEqual([
        'watch: ignoring "src/[x.js": "[" without a closing "]"',
        "watch: native file watching failed (ENOSPC: no space left); polling every 500ms instead",
        "watch: watching *.js (polling every 500ms)",
      ])
    }),
  )

  it.scoped("native: a watcher that cannot be set up is reported in the log, nothing fails", () =>
    Effect.gen(function* () {
      const { backend, asked } = failingNative()
      const notes = yield* open("native", backend)
      expect(asked).toEqual([{ poll: false, closed: false }])
      expect(notes.at(-1)).toBe("watch: cannot watch files: ENOSPC: no space left")
    }),
  )
})
