/**
 * Adoption of daemon processes the state file does not name: a supervisor killed between a
 * spawn and the state write leaves a live process whose output file is the daemon's log. The
 * next supervisor adopts it when nothing else runs for the daemon, and ends it when it belongs
 * to a daemon nobody knows.
 */
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { DaemonRecord, PersistentState } from "../../src/state/State.js"
import { makeStateStore } from "../../src/state/StateStore.js"
import { writeFileAtomic } from "../../src/state/stateFile.js"
import { adoptPrevious } from "../../src/supervisor/adopt.js"
import { type FoundProcess, outputFileKey } from "../../src/supervisor/orphans.js"
import { makeRegistry } from "../../src/supervisor/registry.js"
import { makeFakeProcessService } from "../../src/testing/FakeProcessService.js"
import { withFakeStorageHealth } from "../../src/testing/FakeStorageHealth.js"
import { makeMemoryLogStore } from "../../src/testing/MemoryLogStore.js"
import { definition, encodeDefinition, tempDir } from "./helpers.js"

const record = (
  def: DaemonDefinition,
  status: DaemonRecord["status"],
  pid: number | null,
  startTime: string | null,
  retryPending = false,
): DaemonRecord => ({
  id: def.id.qualified,
  definition: encodeDefinition(def),
  adhoc: false,
  status,
  pid,
  start_time: startTime,
  started_at: 1_700_000_000_000,
  ports: [],
  retry_count: 1,
  retry_pending: retryPending,
})

/** A state file of `records`, a registry, an in-memory log store and a fake process service. */
const adoptWith = (records: ReadonlyArray<DaemonRecord>) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const stateFile = nodePath.join(dir, "state.json")
    const initial: PersistentState = {
      version: 1,
      cron: {},
      scaled: {},
      daemons: Object.fromEntries(records.map((r) => [r.id, r])),
      disabled: [],
      namespaces: {},
      projects: [],
    }
    writeFileAtomic(stateFile, JSON.stringify(initial))
    const state = yield* withFakeStorageHealth(makeStateStore(stateFile))
    const registry = yield* makeRegistry(state)
    const logsDir = nodePath.join(dir, "logs")
    const logs = (yield* makeMemoryLogStore({ dir: logsDir })).store
    const logFile = (id: string) => outputFileKey(nodePath.join(logsDir, `${id.replace("/", "--")}.out`))
    const adopted = yield* Ref.make<ReadonlyArray<{ id: string; pid: number }>>([])
    const resumed = yield* Ref.make<ReadonlyArray<string>>([])
    const fake = yield* makeFakeProcessService()
    return { registry, adopted, resumed, logFile, logs, state, fake }
  })

describe("adoption of processes the state file does not name", () => {
  const web = definition("web")
  const api = definition("api")

  it.scoped("a daemon recorded stopped whose process runs is adopted, not signalled", () =>
    Effect.gen(function* () {
      const env = yield* adoptWith([record(web, { type: "stopped", exit_code: 0, signal: null }, null, null)])
      const p = yield* env.fake.seed()
      // a descendant of it that called setsid, started later: not the daemon
      const child = yield* env.fake.seed()
      const file = env.logFile(web.id.qualified)
      yield* run(env, [
        { pid: child.pid, startTime: child.startTime, outputFile: file },
        { pid: p.pid, startTime: p.startTime, outputFile: file },
      ])
      const r = yield* env.registry.current(web.id.qualified)
      expect(r?.status).toEqual({ type: "running" })
      expect(r?.pid).toBe(p.pid)
      expect(yield* Ref.get(env.adopted)).toEqual([{ id: web.id.qualified, pid: p.pid }])
      expect(yield* Ref.get(env.fake.signals)).toEqual([])
      // and the state file now names it
      expect((yield* env.state.get).daemons[web.id.qualified]?.pid).toBe(p.pid)
    }),
  )

  it.scoped("a retry pending is not resumed when the retried process already runs", () =>
    Effect.gen(function* () {
      const env = yield* adoptWith([
        record(web, { type: "errored", exit_code: 1, signal: null }, null, null, true),
      ])
      const p = yield* env.fake.seed()
      yield* run(env, [{ pid: p.pid, startTime: p.startTime, outputFile: env.logFile(web.id.qualified) }])
      expect((yield* env.registry.current(web.id.qualified))?.pid).toBe(p.pid)
      expect(yield* Ref.get(env.resumed)).toEqual([])
    }),
  )

  it.scoped("a process in a session of its own next to the recorded live one is left alone", () =>
    Effect.gen(function* () {
      const env = yield* adoptWith([])
      const recorded = yield* env.fake.seed()
      const extra = yield* env.fake.seed()
      yield* env.state.update((s) => ({
        ...s,
        daemons: { [web.id.qualified]: record(web, { type: "running" }, recorded.pid, recorded.startTime) },
      }))
      const file = env.logFile(web.id.qualified)
      yield* run(env, [
        { pid: recorded.pid, startTime: recorded.startTime, outputFile: file },
        { pid: extra.pid, startTime: extra.startTime, outputFile: file },
      ])
      expect((yield* env.registry.current(web.id.qualified))?.pid).toBe(recorded.pid)
      expect(yield* Ref.get(env.fake.signals)).toEqual([])
      expect(yield* Ref.get(env.adopted)).toEqual([{ id: web.id.qualified, pid: recorded.pid }])
    }),
  )

  it.scoped("a process of a daemon the state file does not know is SIGKILLed", () =>
    Effect.gen(function* () {
      const env = yield* adoptWith([record(web, { type: "stopped", exit_code: 0, signal: null }, null, null)])
      const stray = yield* env.fake.seed()
      yield* run(env, [
        { pid: stray.pid, startTime: stray.startTime, outputFile: env.logFile(api.id.qualified) },
      ])
      expect(yield* Ref.get(env.fake.signals)).toEqual([{ pgid: stray.pid, signal: "SIGKILL" }])
      expect((yield* env.registry.current(web.id.qualified))?.status.type).toBe("stopped")
      expect(yield* Ref.get(env.adopted)).toEqual([])
    }),
  )
})

type Env = Effect.Effect.Success<ReturnType<typeof adoptWith>>

const run = (env: Env, found: ReadonlyArray<FoundProcess>) =>
  adoptPrevious({
    state: env.state,
    processes: env.fake.service,
    logs: env.logs,
    registry: env.registry,
    adopt: (def, handle) => Ref.update(env.adopted, (a) => [...a, { id: def.id.qualified, pid: handle.pid }]),
    resume: (def) => Ref.update(env.resumed, (r) => [...r, def.id.qualified]),
    stop: () => Effect.void,
    found: Effect.succeed(found),
  })
