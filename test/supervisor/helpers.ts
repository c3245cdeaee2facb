import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import {
  Chunk,
  Context,
  Deferred,
  Effect,
  Fiber,
  Layer,
  Option,
  Ref,
  Schema,
  Stream,
  TestClock,
} from "effect"
import { SupervisorConfig } from "../../src/config/SupervisorConfig.js"
import { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { StatusType } from "../../src/domain/DaemonStatus.js"
import { Settings } from "../../src/domain/Settings.js"
import { EventLog, type EventLogShape, makeEventLog } from "../../src/events/EventLog.js"
import { LogStore } from "../../src/logs/LogStore.js"
import { ProcessService } from "../../src/process/ProcessService.js"
import type { DaemonRecord, PersistentState } from "../../src/state/State.js"
import { makeStateStore, StateStore } from "../../src/state/StateStore.js"
import { StorageHealth } from "../../src/state/StorageHealth.js"
import { readStateFile, writeFileAtomic } from "../../src/state/stateFile.js"
import type { DaemonState } from "../../src/supervisor/DaemonState.js"
import type { HookCommand } from "../../src/supervisor/hooks/HookRunner.js"
import type { ReadinessProbesShape } from "../../src/supervisor/readiness/index.js"
import { Supervisor, SupervisorLive, type SupervisorShape } from "../../src/supervisor/Supervisor.js"
import { type FakeProcessService, makeFakeProcessService } from "../../src/testing/FakeProcessService.js"
import { makeFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"
import { makeRecordingHookRunner, portsLayer, probesLayer } from "../../src/testing/fakes.js"
import { makeMemoryLogStore } from "../../src/testing/MemoryLogStore.js"

/** A fresh directory, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-lifecycle-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

/** A resolved daemon definition `app/<name>`; `config` is in the encoded (file) form. */
export const definition = (
  name: string,
  config: Record<string, unknown> = {},
  namespace = "app",
): DaemonDefinition =>
  Schema.decodeUnknownSync(DaemonDefinition)({
    id: { namespace, name, qualified: `${namespace}/${name}`, safe_path: `${namespace}--${name}` },
    config: { run: `./${name} --serve`, dir: `/srv/${name}`, env: { MODE: "test" }, ...config },
    adhoc: false,
    source: "/srv/supervisor.toml",
  })

export const encodeDefinition = Schema.encodeSync(DaemonDefinition)

/** The supervisor's base environment in these tests. */
export const BASE_ENV = { PATH: "/usr/bin:/bin", HOME: "/home/tester" }

export interface HarnessOptions {
  /** Settings in the file form, e.g. `{ supervisor: { stop_timeout: "2s" } }`. */
  readonly settings?: Record<string, unknown>
  /** The fake to use (share one between harnesses to simulate a supervisor restart). */
  readonly fake?: FakeProcessService
  /** Written to the state file before the supervisor is built. */
  readonly initialState?: PersistentState
  /**
   * Called at the start of every `LogStore.prepare` (1-based call number): lets a test hold a
   * lifecycle fiber inside its (uninterruptible) spawn step.
   */
  readonly beforePrepare?: (call: number, id: string) => Effect.Effect<void>
  /** Lines a daemon prints once its first process is spawned (the "last output lines" of a failed start). */
  readonly output?: Readonly<Record<string, ReadonlyArray<string>>>
  /** Runs right after each process is spawned (before the supervisor has recorded it). */
  readonly afterSpawn?: (id: string, emit: (line: string) => Effect.Effect<void>) => Effect.Effect<void>
  /** Ports the fake port check reports as in use (every other port is free; none is bound). */
  readonly busyPorts?: ReadonlyArray<number>
  /** Who holds a busy port, as the fake reports it. */
  readonly portHolders?: Readonly<Record<number, { readonly pid: number; readonly name: string }>>
  /** Fake readiness probes (http, port, cmd); without them a probe used by a test is a defect. */
  readonly probes?: ReadinessProbesShape
}

export interface Harness {
  readonly sup: SupervisorShape
  readonly fake: FakeProcessService
  readonly dir: string
  readonly stateFile: string
  /** Status types of a daemon as written to the state store, consecutive duplicates removed. */
  readonly persisted: (id: string) => Effect.Effect<ReadonlyArray<StatusType>>
  /** The most fake processes of one daemon that were alive at the same time. */
  readonly maxLive: (id: string) => Effect.Effect<number>
  /** The daemons whose logs were forgotten (`clean`). */
  readonly forgotten: Effect.Effect<ReadonlyArray<string>>
  /** The state file as JSON. */
  readonly stateOnDisk: () => PersistentState
  /** Appends an output line of a daemon, as its log follower would have indexed it (`onLines`). */
  readonly emit: (id: string, line: string) => Effect.Effect<void>
  /** The daemon's log as stored: its lines and the supervisor's, in order. */
  readonly logLines: (id: string) => Effect.Effect<ReadonlyArray<string>>
  /** Every hook the supervisor ran (the fake runner records it and "exits 0" at once). */
  readonly hooks: Effect.Effect<ReadonlyArray<HookCommand>>
  /** The supervisor's event log. */
  readonly events: EventLogShape
}

/**
 * The real Supervisor layer (`SupervisorLive`, built in the test's scope) over the fake process
 * service, the real state store on a temp file (recording every status it is given) and an
 * in-memory log store. Everything time-dependent runs on the TestClock.
 */
export const makeHarness = (options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const stateFile = nodePath.join(dir, "state.json")
    if (options.initialState) writeFileAtomic(stateFile, JSON.stringify(options.initialState))
    const fake = options.fake ?? (yield* makeFakeProcessService())

    const history = yield* Ref.make<Record<string, ReadonlyArray<StatusType>>>({})
    const health = yield* makeFakeStorageHealth()
    const real = yield* makeStateStore(stateFile).pipe(Effect.provideService(StorageHealth, health))
    const noteStatuses = (next: PersistentState) =>
      Ref.update(history, (h) => {
        const out = { ...h }
        for (const [id, record] of Object.entries(next.daemons)) {
          const seen = out[id] ?? []
          if (seen[seen.length - 1] !== record.status.type) out[id] = [...seen, record.status.type]
        }
        return out
      })
    const store = {
      ...real,
      update: (f: (s: PersistentState) => PersistentState) => real.update(f).pipe(Effect.tap(noteStatuses)),
      record: (f: (s: PersistentState) => PersistentState) => real.record(f).pipe(Effect.tap(noteStatuses)),
      recordDaemon: (id: string, r: DaemonRecord) =>
        real.recordDaemon(id, r).pipe(Effect.zipRight(real.get), Effect.flatMap(noteStatuses)),
    }

    const memory = yield* makeMemoryLogStore({
      dir: nodePath.join(dir, "logs"),
      ...(options.beforePrepare ? { beforePrepare: options.beforePrepare } : {}),
    })
    const printed = new Set<string>()
    const printOutput = (id: string) =>
      Effect.suspend(() => {
        if (printed.has(id)) return Effect.void
        printed.add(id)
        return Effect.forEach(options.output?.[id] ?? [], (line) => memory.emit(id, line), { discard: true })
      })
    const emit = memory.emit

    // Tracks, at every spawn, how many processes of that daemon are alive (the fake changes
    // liveness only at spawn and exit, so the maximum over spawns is the maximum ever).
    const live = yield* Ref.make<Record<string, number>>({})
    const countLive = (id: string) =>
      Effect.gen(function* () {
        const all = yield* fake.processes
        const running = new Set(yield* fake.running)
        return all.filter((p) => p.request?.id === id && running.has(p.pid)).length
      })
    const processes = {
      ...fake.service,
      spawn: (req: Parameters<typeof fake.service.spawn>[0]) =>
        fake.service.spawn(req).pipe(
          Effect.tap(() =>
            countLive(req.id).pipe(
              Effect.flatMap((n) =>
                Ref.update(live, (m) => ({ ...m, [req.id]: Math.max(m[req.id] ?? 0, n) })),
              ),
            ),
          ),
          Effect.tap(() =>
            options.afterSpawn ? options.afterSpawn(req.id, (line) => emit(req.id, line)) : Effect.void,
          ),
          Effect.tap(() => printOutput(req.id)),
        ),
    }

    const hookRunner = yield* makeRecordingHookRunner
    const settings = Schema.decodeUnknownSync(Settings)(options.settings ?? {})
    const events = yield* makeEventLog()
    const deps = Layer.mergeAll(
      Layer.succeed(EventLog, events),
      hookRunner.layer,
      portsLayer(options.busyPorts, options.portHolders),
      probesLayer(options.probes),
      Layer.succeed(ProcessService, processes),
      Layer.succeed(StateStore, store),
      Layer.succeed(StorageHealth, health),
      Layer.succeed(LogStore, memory.store),
      Layer.succeed(SupervisorConfig, { settings, env: BASE_ENV }),
      NodeFileSystem.layer, // env files are real files of the test's directory
    )
    const context = yield* Layer.build(SupervisorLive.pipe(Layer.provide(deps)))
    const harness: Harness = {
      sup: Context.get(context, Supervisor),
      fake,
      dir,
      stateFile,
      persisted: (id) => Ref.get(history).pipe(Effect.map((h) => h[id] ?? [])),
      maxLive: (id) => Ref.get(live).pipe(Effect.map((m) => m[id] ?? 0)),
      forgotten: memory.forgotten,
      stateOnDisk: () => readStateFile(stateFile).state,
      emit,
      logLines: (id) =>
        memory.store.query(id).pipe(
          Effect.map((es) => es.map((e) => e.message)),
          Effect.orDie,
        ),
      hooks: hookRunner.hooks,
      events,
    }
    return harness
  })

/**
 * Waits (on `changes`, no polling, no sleep) until the daemon's runtime satisfies `pred`.
 * Only use it for states that last until the test acts again.
 */
export const awaitRuntime = (sup: SupervisorShape, id: string, pred: (r: DaemonState) => boolean) =>
  sup.changes.pipe(
    Stream.mapEffect(() => Effect.option(sup.get(id))),
    Stream.filterMap((r) => (Option.isSome(r) && pred(r.value) ? r : Option.none())),
    Stream.runHead,
    Effect.flatMap((r) => (Option.isSome(r) ? Effect.succeed(r.value) : Effect.dieMessage("changes ended"))),
  )

export const awaitStatus = (sup: SupervisorShape, id: string, type: StatusType) =>
  awaitRuntime(sup, id, (r) => r.status.type === type)

/** How many sleeps on the TestClock end exactly at `deadline` (absolute TestClock millis). */
export const sleepsUntil = (deadline: number) =>
  TestClock.sleeps().pipe(Effect.map((sleeps) => Chunk.size(Chunk.filter(sleeps, (at) => at === deadline))))

/**
 * Runs `action`, then waits until one more fiber sleeps on the TestClock until `deadline`.
 * Adjusting the clock before a sleep is registered would skip it, so tests call this before
 * every `TestClock.adjust`. Counting (rather than looking for the deadline) ignores sleeps left
 * by interrupted races, which the TestClock keeps until their time passes. Yields between checks
 * and gives up after many turns rather than hanging.
 */
export const expectSleepUntil = <A, E, R>(deadline: number, action: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* sleepsUntil(deadline)
    const a = yield* action
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* sleepsUntil(deadline)) > before) return a
      yield* Effect.yieldNow()
    }
    const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
    return yield* Effect.dieMessage(`no new sleep until ${deadline} ms (sleeps: ${sleeps.join(", ")})`)
  })

/** Waits until at least one fiber sleeps on the TestClock until `deadline`. */
export const awaitSleepUntil = (deadline: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* sleepsUntil(deadline)) > 0) return
      yield* Effect.yieldNow()
    }
    const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
    return yield* Effect.dieMessage(`no sleep until ${deadline} ms (sleeps: ${sleeps.join(", ")})`)
  })

/** `expectSleepUntil` for a sleep of `millis` from now. */
export const expectSleep = <A, E, R>(millis: number, action: Effect.Effect<A, E, R>) =>
  TestClock.currentTimeMillis.pipe(Effect.flatMap((now) => expectSleepUntil(now + millis, action)))

/** Starts `def`, lets its ready delay pass on the TestClock and returns the pid it reported ready. */
export const startReady = (sup: SupervisorShape, def: DaemonDefinition) =>
  Effect.gen(function* () {
    const delay = Math.round((def.config.ready_delay ?? 3) * 1000)
    const starting = yield* expectSleep(delay, Effect.fork(sup.start(def)))
    yield* TestClock.adjust(delay)
    const outcome = yield* Fiber.join(starting)
    if (outcome._tag !== "Ready")
      return yield* Effect.dieMessage(`expected Ready, got ${JSON.stringify(outcome)}`)
    return outcome.pid
  })

/** Waits until the fake has received `n` spawn requests (yielding between checks, bounded). */
/** How many processes the harness's fake process service has spawned so far. */
export const spawnCount = (h: Harness) => Ref.get(h.fake.spawned).pipe(Effect.map((rs) => rs.length))

export const awaitSpawns = (fake: FakeProcessService, n: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* Ref.get(fake.spawned)).length >= n) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`expected ${n} spawns, got ${(yield* Ref.get(fake.spawned)).length}`)
  })

/** A gate: `wait` blocks until `open`. */
export const makeGate = Effect.gen(function* () {
  const opened = yield* Deferred.make<void>()
  return { wait: Deferred.await(opened), open: Deferred.succeed(opened, undefined) }
})

/** Waits until the fake hook runner has run `n` hooks (yielding between checks, bounded). */
export const awaitHooks = (h: Harness, n: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      const hooks = yield* h.hooks
      if (hooks.length >= n) return hooks
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`expected ${n} hooks, got ${(yield* h.hooks).length}`)
  })
