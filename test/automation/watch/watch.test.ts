import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Schema, Stream, SubscriptionRef, TestClock } from "effect"
import {
  configuredSpecs,
  configuredWatchOf,
  daemonSpecs,
  makeWatch,
} from "../../../src/automation/watch/Watch.js"
import type { DaemonDefinition } from "../../../src/domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../../../src/domain/ResolvedConfig.js"
import { Settings } from "../../../src/domain/Settings.js"
import type { ProjectState } from "../../../src/registry/ProjectRegistry.js"
import {
  awaitRuntime,
  awaitSleepUntil,
  awaitStatus,
  definition,
  makeHarness,
  startReady,
} from "../../supervisor/helpers.js"

import { configurable, type FakeWatcher, fakeBackend, spawns, TIMING, WEB } from "./fakes.js"

const setup = Effect.gen(function* () {
  const h = yield* makeHarness()
  const fake = fakeBackend()
  yield* makeWatch(daemonSpecs(h.sup, TIMING), {
    restart: (id, detail) => h.sup.restartIfRunning(id, "watch", undefined, detail).pipe(Effect.ignore),
    note: (id, text) => Effect.sync(() => void id).pipe(Effect.zipRight(Effect.succeed(text)), Effect.asVoid),
    problem: h.sup.setWatchProblem,
    backend: fake.backend,
    stateDir: undefined,
  })
  return { h, fake }
})

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
        const specs = configuredSpecs(
          h.sup,
          configured.changes.pipe(Stream.map((definitions) => ({ definitions, timing: () => TIMING }))),
        )
        const watch = yield* makeWatch(specs, {
          restart: () => Effect.void,
          note: () => Effect.void,
          problem: () => Effect.void,
          backend: fake.backend,
          stateDir: undefined,
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

describe("watch settings in force", () => {
  it.scoped("a new file_watch_debounce applies to the next change, without reopening the watcher", () =>
    Effect.gen(function* () {
      const { h, fake, setTiming } = yield* configurable()
      const pid = yield* startReady(h.sup, definition("web", { watch: ["*.js"] }))
      const [w] = yield* fake.awaitOpen(1)
      if (w === undefined) return yield* Effect.dieMessage("no watcher")
      yield* setTiming({ ...TIMING, debounce: Duration.seconds(5) })
      // the watcher stays; the next burst waits 5 s
      for (let turn = 0; turn < 1000; turn++) yield* Effect.yieldNow()
      expect(fake.watchers.length).toBe(1)
      const now = yield* TestClock.currentTimeMillis
      w.on.change("/srv/app.js")
      yield* awaitSleepUntil(now + 5000)
      yield* TestClock.adjust("4999 millis")
      expect(yield* spawns(h)).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* awaitRuntime(h.sup, WEB, (r) => r.pid !== null && r.pid !== pid)
      expect(yield* spawns(h)).toBe(2)
    }),
  )

  it.scoped("a new watch_poll_interval reopens a polling watcher with it", () =>
    Effect.gen(function* () {
      const { h, fake, setTiming } = yield* configurable()
      yield* startReady(h.sup, definition("web", { watch: ["*.js"], watch_mode: "poll" }))
      const [first] = yield* fake.awaitOpen(1)
      expect(first?.options.intervalMillis).toBe(500)
      yield* setTiming({ ...TIMING, pollInterval: Duration.seconds(2) })
      for (let turn = 0; turn < 20_000 && fake.watchers.length < 2; turn++) yield* Effect.yieldNow()
      const [second] = yield* fake.awaitOpen(1)
      expect(first?.closed).toBe(true)
      expect(second?.options).toMatchObject({ poll: true, intervalMillis: 2000 })
      expect(yield* spawns(h)).toBe(1)
    }),
  )
})

describe("watch settings of each daemon's project", () => {
  const settings = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Settings)(input)
  const project = (dir: string, defs: ReadonlyArray<DaemonDefinition>, s: Settings): ProjectState => ({
    dir,
    sources: ["noted"],
    names: [],
    config: { settings: s } as ResolvedConfig, // only its settings are read here
    definitions: new Map(defs.map((d) => [d.id.qualified, d])),
    problems: [],
    problem: undefined,
  })

  it("a daemon follows its project's settings; a daemon no project configures, the global ones", () => {
    const global = settings({ supervisor: { file_watch_debounce: "2s" } })
    const slow = settings({ supervisor: { file_watch_debounce: "7s", watch_poll_interval: "3s" } })
    const configured = configuredWatchOf({
      settings: global,
      projects: [
        project("/srv/a", [definition("web", {}, "a")], slow),
        project("/srv/b", [definition("web", {}, "b"), definition("web", {}, "a")], global),
      ],
    })
    expect([...configured.definitions.keys()]).toEqual(["a/web", "b/web"])
    const millis = (id: string) => {
      const t = configured.timing(id)
      return [Duration.toMillis(t.debounce), Duration.toMillis(t.pollInterval)]
    }
    expect(millis("a/web")).toEqual([7000, 3000])
    expect(millis("b/web")).toEqual([2000, 500])
    expect(millis("adhoc/job")).toEqual([2000, 500])
  })
})
