// The planner's dependency conditions (`ready`, `completed`, `started`), with fake starts.
import { Deferred, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type Begin, beginFrom, startWithDependencies } from "../../src/control/startOrder.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { DependencyCondition } from "../../src/domain/Dependency.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"
import type { DaemonState } from "../../src/supervisor/DaemonState.js"

/** `app/<name>`, depending on `deps`: a name (`ready`) or [name, condition]. */
const def = (name: string, deps: Array<string | [string, DependencyCondition]> = []): DaemonDefinition => {
  const entries = deps.map((d) => (typeof d === "string" ? [d, "ready" as const] : d))
  return {
    id: { namespace: "app", name, qualified: `app/${name}`, safe_path: `app--${name}` },
    config: new DaemonConfig({
      run: name,
      dir: "/tmp",
      depends: entries.map(([d]) => `app/${d}`),
      depends_conditions: Object.fromEntries(
        entries.filter(([, c]) => c !== "ready").map(([d, c]) => [`app/${d}`, c] as const),
      ) as Record<string, DependencyCondition>,
    }),
    adhoc: false,
    source: null,
  }
}

const ready = (id: string): StartOutcome => ({ _tag: "Ready", id, pid: 1 })
const completed = (id: string): StartOutcome => ({ _tag: "Completed", id })
/** Notes `line` in `events`, then answers `outcome`. */
const noted = (events: Array<string>, line: string, outcome: StartOutcome) =>
  Effect.sync(() => {
    events.push(line)
    return outcome
  })
const failed = (id: string, message: string, output: Array<string> = []): StartOutcome => ({
  _tag: "StartFailed",
  id,
  message,
  exit_code: 3,
  signal: null,
  output,
  cli_status: 1,
})

describe("completed", () => {
  it("waits for a ready dependency's run to end before the dependent starts; its outcome is how it ended", async () => {
    const events: Array<string> = []
    const start = (d: DaemonDefinition) =>
      Effect.sync(() => {
        events.push(`start ${d.id.name}`)
        return ready(d.id.qualified)
      })
    const completion = (id: string) =>
      Effect.sync((): StartOutcome => {
        events.push(`completion ${id}`)
        return { _tag: "Completed", id }
      })
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom(start),
        [def("api", [["migrate", "completed"]])],
        [def("migrate")],
        false,
        {
          completion,
          onOutcome: (o) => Effect.sync(() => events.push(`${o._tag} ${o.id}`)),
        },
      ),
    )
    expect(events).toEqual([
      "start migrate",
      "completion app/migrate",
      "Completed app/migrate",
      "start api",
      "Ready app/api",
    ])
    expect(outcomes.map((o) => o._tag)).toEqual(["Completed", "Ready"])
  })

  it("a dependency that exits 0 before it is ready needs no wait", async () => {
    const completions: Array<string> = []
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) =>
          Effect.succeed<StartOutcome>(
            d.id.name === "migrate" ? { _tag: "Completed", id: d.id.qualified } : ready(d.id.qualified),
          ),
        ),
        [def("api", [["migrate", "completed"]])],
        [def("migrate")],
        false,
        { completion: (id) => noted(completions, id, ready(id)) },
      ),
    )
    expect(completions).toEqual([])
    expect(outcomes.map((o) => o._tag)).toEqual(["Completed", "Ready"])
  })

  it("a non-zero exit fails the dependent with the dependency's last output; it is not started", async () => {
    const started: Array<string> = []
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) => noted(started, d.id.name, ready(d.id.qualified))),
        [def("web", ["api"])],
        [def("api", ["db", ["migrate", "completed"]]), def("migrate"), def("db")],
        false,
        {
          completion: (id) =>
            Effect.succeed(failed(id, `${id} exited with code 3`, ["applying 0002", "relation exists"])),
        },
      ),
    )
    expect(started.sort()).toEqual(["db", "migrate"])
    const byId = new Map(outcomes.map((o) => [o.id, o]))
    expect(byId.get("app/migrate")).toMatchObject({
      _tag: "StartFailed",
      message: "app/migrate exited with code 3",
    })
    expect(byId.get("app/api")).toMatchObject({
      _tag: "StartFailed",
      message: "not started: its dependency app/migrate did not complete (app/migrate exited with code 3)",
      output: ["applying 0002", "relation exists"],
    })
    // a dependent of the dependent: the root cause and its output, too
    expect(byId.get("app/web")).toMatchObject({
      _tag: "StartFailed",
      message: expect.stringContaining(
        "its dependency app/api failed (not started: its dependency app/migrate",
      ),
      output: ["applying 0002", "relation exists"],
    })
  })

  it("a dependency that runs already is waited for until it completes, not restarted", async () => {
    const events: Array<string> = []
    await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) =>
          Effect.sync((): StartOutcome => {
            events.push(`start ${d.id.name}`)
            return d.id.name === "migrate"
              ? { _tag: "AlreadyRunning", id: d.id.qualified, pid: 7 }
              : ready(d.id.qualified)
          }),
        ),
        [def("api", [["migrate", "completed"]])],
        [def("migrate")],
        false,
        {
          isRunning: (id) => Effect.succeed(id === "app/migrate"),
          completion: (id) => noted(events, `completion ${id}`, completed(id)),
        },
      ),
    )
    expect(events).toEqual(["start migrate", "completion app/migrate", "start api"])
  })

  it("a `ready` dependent alongside waits as well: the level waits for the most a dependent asks", async () => {
    const events: Array<string> = []
    await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) => noted(events, `start ${d.id.name}`, ready(d.id.qualified))),
        [def("api", [["migrate", "completed"]]), def("worker", ["migrate"])],
        [def("migrate")],
        false,
        {
          completion: (id) => noted(events, `completion ${id}`, completed(id)),
        },
      ),
    )
    expect(events.slice(0, 2)).toEqual(["start migrate", "completion app/migrate"])
    expect(events.slice(2).sort()).toEqual(["start api", "start worker"])
  })
})

describe("started", () => {
  /** A begin whose starts spawn at once and settle only when `release` is called. */
  const spawnNow = () => {
    const events: Array<string> = []
    const releases = new Map<string, Deferred.Deferred<void>>()
    const begin: Begin = (d, options) =>
      Effect.gen(function* () {
        events.push(`start ${d.id.name}`)
        const released = yield* Deferred.make<void>()
        releases.set(d.id.name, released)
        yield* options.onSpawned?.({} as DaemonState) ?? Effect.void
        return Deferred.await(released).pipe(
          Effect.as(ready(d.id.qualified)),
          Effect.tap((o) => Effect.sync(() => events.push(`${o._tag} ${o.id}`))),
          Effect.tap((o) => options.onOutcome?.(o) ?? Effect.void),
        )
      })
    return { events, releases, begin }
  }

  it("the dependent starts once the dependency's process exists, before it is ready", async () => {
    const f = spawnNow()
    const run = Effect.runPromise(
      startWithDependencies(f.begin, [def("api", [["queue", "started"]])], [def("queue")], false),
    )
    // api started while queue is still not ready
    await expect.poll(() => f.events).toEqual(["start queue", "start api"])
    await Effect.runPromise(Deferred.succeed(f.releases.get("api")!, undefined))
    await Effect.runPromise(Deferred.succeed(f.releases.get("queue")!, undefined))
    const outcomes = await run
    // every outcome is still reported, in start order
    expect(outcomes.map((o) => `${o._tag} ${o.id}`)).toEqual(["Ready app/queue", "Ready app/api"])
  })

  it("a dependency that fails before its process exists fails the dependent", async () => {
    const outcomes = await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) =>
          Effect.succeed(
            d.id.name === "queue" ? failed(d.id.qualified, "port 5672 is in use") : ready(d.id.qualified),
          ),
        ),
        [def("api", [["queue", "started"]])],
        [def("queue")],
        false,
      ),
    )
    expect(outcomes[1]).toMatchObject({
      _tag: "StartFailed",
      message: "not started: its dependency app/queue failed (port 5672 is in use)",
    })
  })
})

describe("progress", () => {
  it("tells first which daemons wait for which dependencies, on what condition", async () => {
    const held: Array<string> = []
    await Effect.runPromise(
      startWithDependencies(
        beginFrom((d) => Effect.succeed(ready(d.id.qualified))),
        [def("api", ["db", ["migrate", "completed"], ["queue", "started"], "cache"])],
        [def("db"), def("migrate"), def("queue"), def("cache")],
        false,
        {
          // cache runs: nothing to wait for; migrate runs too, but is waited for until it completes
          isRunning: (id) => Effect.succeed(id === "app/cache" || id === "app/migrate"),
          completion: (id) => Effect.succeed({ _tag: "Completed", id }),
          onHeld: (d, pending) =>
            Effect.sync(() =>
              held.push(`${d.id.name}: ${pending.map((p) => `${p.id} ${p.condition}`).join(", ")}`),
            ),
        },
      ),
    )
    expect(held).toEqual(["api: app/db ready, app/migrate completed, app/queue started"])
  })
})
