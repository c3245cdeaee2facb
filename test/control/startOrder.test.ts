import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { beginFrom, startWithDependencies } from "../../src/control/startOrder.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { startLevels } from "../../src/domain/dependencyLevels.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"

const def = (name: string, depends: Array<string> = []): DaemonDefinition => ({
  id: { namespace: "app", name, qualified: `app/${name}`, safe_path: `app--${name}` },
  config: new DaemonConfig({ run: name, dir: "/tmp", depends: depends.map((d) => `app/${d}`) }),
  adhoc: false,
  source: null,
})
const map = (...defs: Array<DaemonDefinition>) => new Map(defs.map((d) => [d.id.qualified, d]))

describe("startLevels", () => {
  it("puts dependencies first and independent daemons on one level", () => {
    const levels = startLevels(map(def("api", ["db", "cache"]), def("db"), def("cache"), def("web", ["api"])))
    expect(levels.map((l) => [...l].sort())).toEqual([["app/cache", "app/db"], ["app/api"], ["app/web"]])
  })
  it("ignores dependencies outside the set (they are assumed running)", () => {
    expect(startLevels(map(def("api", ["db"])))).toEqual([["app/api"]])
  })
})

describe("startWithDependencies", () => {
  const recorder = (fail: ReadonlyArray<string> = []) => {
    const calls: Array<{ id: string; force: boolean }> = []
    const start = (d: DaemonDefinition, o: { force?: boolean }): Effect.Effect<StartOutcome> =>
      Effect.sync(() => {
        calls.push({ id: d.id.qualified, force: o.force ?? false })
        return fail.includes(d.id.name)
          ? {
              _tag: "StartFailed",
              id: d.id.qualified,
              message: `${d.id.qualified} exited with code 1`,
              exit_code: 1,
              signal: null,
              output: [],
              cli_status: 1,
            }
          : { _tag: "Ready", id: d.id.qualified, pid: 1 }
      })
    return { calls, start }
  }

  it("starts dependencies level by level before the requested daemon; force applies only to it", async () => {
    const r = recorder()
    const outcomes = await Effect.runPromise(
      startWithDependencies(beginFrom(r.start), [def("web", ["api"])], [def("api", ["db"]), def("db")], true),
    )
    expect(r.calls).toEqual([
      { id: "app/db", force: false },
      { id: "app/api", force: false },
      { id: "app/web", force: true },
    ])
    expect(outcomes.map((o) => o.id)).toEqual(["app/db", "app/api", "app/web"])
  })

  it("with a sync, no start waits for the state file: it is synced once, after the last start", async () => {
    const events: Array<string> = []
    const start = (d: DaemonDefinition, o: { sync?: boolean }): Effect.Effect<StartOutcome> =>
      Effect.sync(() => {
        events.push(`start ${d.id.name} sync=${o.sync ?? true}`)
        return { _tag: "Ready", id: d.id.qualified, pid: 1 }
      })
    const sync = Effect.sync(() => {
      events.push("sync")
    })
    await Effect.runPromise(
      startWithDependencies(beginFrom(start), [def("web", ["db"])], [def("db")], false, { sync }),
    )
    expect(events).toEqual(["start db sync=false", "start web sync=false", "sync"])
    events.length = 0
    await Effect.runPromise(startWithDependencies(beginFrom(start), [def("web")], [], false))
    expect(events).toEqual(["start web sync=true"])
  })

  it("a failed dependency fails its dependents with the root cause, and they are not started", async () => {
    const r = recorder(["db"])
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom(r.start),
        [def("web", ["api"])],
        [def("api", ["db"]), def("db")],
        false,
      ),
    )
    expect(r.calls.map((c) => c.id)).toEqual(["app/db"])
    const web = outcomes.find((o) => o.id === "app/web")
    expect(web).toMatchObject({ _tag: "StartFailed", cli_status: 1 })
    expect((web as { message: string }).message).toMatch(
      /dependency app\/api failed .*dependency app\/db failed \(app\/db exited with code 1\)/,
    )
  })

  it("tells each outcome as it is settled, once, before the next level starts", async () => {
    const r = recorder(["api"])
    const heard: Array<string> = []
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom((d, o) =>
          Effect.sync(() => heard.push(`start ${d.id.name}`)).pipe(Effect.zipRight(r.start(d, o))),
        ),
        [def("web", ["api"]), def("cache")],
        [def("api", ["db"]), def("db")],
        false,
        { onOutcome: (o) => Effect.sync(() => heard.push(`${o._tag} ${o.id}`)) },
      ),
    )
    expect(heard).toEqual([
      "start db",
      "Ready app/db",
      "start cache",
      "Ready app/cache",
      "start api",
      "StartFailed app/api",
      "StartFailed app/web", // not started: its dependency failed, told all the same
    ])
    expect(outcomes.map((o) => o.id)).toEqual(["app/db", "app/cache", "app/api", "app/web"])
  })

  it("a requested daemon that runs already needs nothing started: dependencies only it needs are left alone", async () => {
    const r = recorder()
    const running = new Set(["app/api"])
    const isRunning = (id: string) => Effect.succeed(running.has(id))
    // api runs: migrate (its one-shot dependency) is not run again
    await Effect.runPromise(
      startWithDependencies(beginFrom(r.start), [def("api", ["migrate"])], [def("migrate")], false, {
        isRunning,
      }),
    )
    expect(r.calls.map((c) => c.id)).toEqual(["app/api"])
    // worker does not run and needs migrate too: then it starts; forced api needs it as well
    const r2 = recorder()
    await Effect.runPromise(
      startWithDependencies(
        beginFrom(r2.start),
        [def("api", ["migrate"]), def("worker", ["migrate"])],
        [def("migrate")],
        false,
        {
          isRunning,
        },
      ),
    )
    expect(r2.calls.map((c) => c.id).sort()).toEqual(["app/api", "app/migrate", "app/worker"])
    const r3 = recorder()
    await Effect.runPromise(
      startWithDependencies(beginFrom(r3.start), [def("api", ["migrate"])], [def("migrate")], true, {
        isRunning,
      }),
    )
    expect(r3.calls.map((c) => c.id)).toEqual(["app/migrate", "app/api"])
  })
})
