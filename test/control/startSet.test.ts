// What a start starts: the walk stops at a dependency that runs, and `completed_once` is met by
// a run that exited 0 under this supervisor (fake starts, no processes).
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { configDefinitions } from "../../src/config/definitions.js"
import { beginFrom, startWithDependencies } from "../../src/control/startOrder.js"
import { startSet } from "../../src/control/startSet.js"
import { waitingListOf } from "../../src/control/waiting.js"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { DependencyCondition } from "../../src/domain/Dependency.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"

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

const migrate = def("migrate")
const api = def("api", [["migrate", "completed"]])
const worker = def("worker", ["api"])
const web = def("web", ["api"])

/** Runs a start with fake starts; the IDs started, in order. */
const started = async (
  requested: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
  running: ReadonlyArray<string>,
  completedHere: ReadonlyArray<string> = [],
) => {
  const calls: Array<string> = []
  const start = (d: DaemonDefinition): Effect.Effect<StartOutcome> =>
    Effect.sync(() => {
      calls.push(d.id.name)
      return running.includes(d.id.qualified)
        ? { _tag: "AlreadyRunning", id: d.id.qualified, pid: 1 }
        : { _tag: "Ready", id: d.id.qualified, pid: 1 }
    })
  await Effect.runPromise(
    startWithDependencies(beginFrom(start), requested, dependencies, force, {
      isRunning: (id) => Effect.succeed(running.includes(id)),
      completedHere: (id) => Effect.succeed(completedHere.includes(id)),
      completion: (id) => Effect.succeed({ _tag: "Completed", id }),
    }),
  )
  return calls
}

describe("the start set", () => {
  it("restart worker: its running dependency api is left alone, and so is the migration behind it", async () => {
    expect(await started([worker], [api, migrate], true, ["app/api", "app/worker"])).toEqual([
      "api",
      "worker",
    ])
  })

  it("start web, another dependent of a running api: the migration does not run", async () => {
    expect(await started([web], [api, migrate], false, ["app/api"])).toEqual(["api", "web"])
  })

  it("a dependent that starts itself runs its completed dependency again (restart api)", async () => {
    expect(await started([api], [migrate], true, ["app/api"])).toEqual(["migrate", "api"])
    // and when api does not run, start worker starts api and runs migrate first
    expect(await started([worker], [api, migrate], false, [])).toEqual(["migrate", "api", "worker"])
  })

  it("completed_once: a run that exited 0 under this supervisor is enough; it runs when it never did", async () => {
    const once = def("api", [["migrate", "completed_once"]])
    expect(await started([once], [migrate], true, ["app/api"], ["app/migrate"])).toEqual(["api"])
    expect(await started([once], [migrate], true, ["app/api"], [])).toEqual(["migrate", "api"])
    // a plain `completed` dependent runs it again all the same
    expect(await started([api], [migrate], true, [], ["app/migrate"])).toEqual(["migrate", "api"])
  })

  it("the spinner's waiting list agrees: nothing waits for a migration that does not run", () => {
    const set = startSet([worker], [api, migrate], new Set(["app/worker"]), (id) => ({
      running: id === "app/api" || id === "app/worker",
      completedHere: false,
    }))
    expect([...set.all.keys()].sort()).toEqual(["app/api", "app/worker"])
    expect([...set.running]).toEqual(["app/api"])
    // start web while api runs: web alone waits (for its readiness), nothing for migrate
    const config = { daemons: {} } as unknown as ResolvedConfig
    const apiRuns = { id: { qualified: "app/api" }, status: { type: "running" } } as unknown as ApiDaemonEntry
    expect(
      waitingListOf([web], [api, migrate], false, configDefinitions(config), [apiRuns], []).map((w) => w.id),
    ).toEqual(["app/web"])
    // completed_once met: api waits for nothing but its own readiness
    const once = def("api", [["migrate", "completed_once"]])
    const list = waitingListOf(
      [once],
      [migrate],
      false,
      configDefinitions(config),
      [],
      [],
      (id) => id === "app/migrate",
    )
    expect(list.map((w) => [w.id, "dependencies" in w])).toEqual([["app/api", false]])
  })
})
