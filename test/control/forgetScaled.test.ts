import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { ScaledCounts } from "../../src/config/replicas.js"
import { forgetStaleCounts } from "../../src/control/scale.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { StatusType } from "../../src/domain/DaemonStatus.js"
import { def } from "./defs.js"

const instance = (daemon: string, index: number) =>
  def(`${daemon}.${index}`, { daemon: `app/${daemon}`, index })

/** Counts, daemons known with their status, 3 configured instances of app/api and of app/web. */
const run = (
  counts: ScaledCounts,
  known: ReadonlyArray<readonly [DaemonDefinition, StatusType]>,
  clean = true,
) => {
  let scaled = new Map(counts)
  const cleaned: Array<string> = []
  const configured = [1, 2, 3].flatMap((i) => [instance("api", i), instance("web", i)])
  return Effect.runPromise(
    forgetStaleCounts(
      {
        scaled: Effect.sync(() => scaled),
        setScaled: (id, count) =>
          Effect.sync(() => {
            scaled = new Map(scaled)
            if (count === undefined) scaled.delete(id)
            else scaled.set(id, count)
          }),
        projects: { definitions: Effect.succeed(configured) },
        sup: {
          list: Effect.succeed(known.map(([d, type]) => ({ def: d, status: { type } }))),
          clean: (ids = []) =>
            Effect.sync(() => {
              cleaned.push(...ids)
              return ids
            }),
        },
      },
      clean,
    ),
  ).then(() => ({ scaled, cleaned }))
}

describe("the counts of scale when a supervisor starts or a daemon stops", () => {
  it("a count whose daemon still runs an instance is kept (a supervisor adopted it)", async () => {
    const r = await run(new Map([["app/api", 5]]), [
      [instance("api", 1), "running"],
      [instance("api", 5), "stopped"],
    ])
    expect([...r.scaled]).toEqual([["app/api", 5]])
    expect(r.cleaned).toEqual([])
  })

  it("after a stop, a count none of whose instances runs is forgotten, with its instances above the configured count", async () => {
    const r = await run(
      new Map([
        ["app/api", 5],
        ["app/web", 1],
      ]),
      [
        [instance("api", 1), "stopped"],
        [instance("api", 4), "errored"],
        [instance("api", 5), "stopped"],
        [instance("web", 1), "running"],
      ],
    )
    expect([...r.scaled]).toEqual([["app/web", 1]])
    expect(r.cleaned).toEqual(["app/api.4", "app/api.5"])
  })

  it("when a supervisor starts, only the count goes: the instances' records and logs stay", async () => {
    const r = await run(new Map([["app/api", 5]]), [[instance("api", 5), "stopped"]], false)
    expect([...r.scaled]).toEqual([])
    expect(r.cleaned).toEqual([])
  })
})
