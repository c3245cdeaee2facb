import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { mergeDefinitions } from "../../src/control/listing.js"
import { type SelectDeps, selectFor } from "../../src/control/selectFor.js"
import type { Selection } from "../../src/domain/Command.js"
import { def } from "./defs.js"

/** Deps whose `known` (the listing of every daemon) counts its builds; app/api is replicated (two instances). */
const depsWith = (oneDaemon: SelectDeps["oneDaemon"]) => {
  let listings = 0
  const entries = mergeDefinitions(
    [],
    [],
    [
      def("web"),
      def("db"),
      def("api.1", { daemon: "app/api", index: 1 }),
      def("api.2", { daemon: "app/api", index: 2 }),
    ],
  )
  const unused = () => Effect.die("not used by a selection without a directory")
  const deps: SelectDeps = {
    // a selection without `from` reads neither the configuration nor the projects
    loader: { load: unused } as unknown as SelectDeps["loader"],
    projects: { note: unused } as unknown as SelectDeps["projects"],
    known: Effect.sync(() => {
      listings++
      return entries
    }),
    running: Effect.succeed(["app/web"]),
    scaled: Effect.succeed(new Map()),
    ...(oneDaemon === undefined ? {} : { oneDaemon }),
  }
  return { deps, listings: () => listings }
}
const select = (deps: SelectDeps, selection: Partial<Selection>) =>
  Effect.runPromise(Effect.either(selectFor(deps, { ids: [], all: false, ...selection }, "configured")))

const single = new Set(["app/web", "app/db", "app/api.1", "app/api.2"])
const oneDaemon = (id: string) => Effect.succeed(single.has(id))

describe("a selection of qualified IDs", () => {
  it("of single daemons is taken as it is, without the listing of every daemon", async () => {
    const { deps, listings } = depsWith(oneDaemon)
    expect(await select(deps, { ids: ["app/web", "app/api.2", "app/web"] })).toMatchObject({
      right: { ids: ["app/web", "app/api.2"], config: undefined },
    })
    expect(listings()).toBe(0)
  })

  it("naming a replicated daemon, or one nobody knows, is resolved from the listing as before", async () => {
    const { deps, listings } = depsWith(oneDaemon)
    expect(await select(deps, { ids: ["app/web", "app/api"] })).toMatchObject({
      right: { ids: ["app/web", "app/api.1", "app/api.2"] },
    })
    expect(await select(deps, { ids: ["app/gone"] })).toMatchObject({
      left: { _tag: "DaemonNotFound", id: "app/gone" },
    })
    expect(listings()).toBeGreaterThan(0)
  })

  it("gives the same IDs with the shortcut as without it", async () => {
    for (const ids of [["app/db"], ["app/db", "app/web"], ["app/api"], ["web"], ["app/nope"]]) {
      const quick = await select(depsWith(oneDaemon).deps, { ids })
      const listed = await select(depsWith(undefined).deps, { ids })
      expect(quick, ids.join(" ")).toEqual(listed)
    }
  })

  it("is not taken as it is with `all`, a group, the files or a `from`", async () => {
    const asked: Array<string> = []
    const { deps } = depsWith((id) => Effect.sync(() => asked.push(id) > 0))
    await select(deps, { ids: ["app/web"], all: true })
    await select(deps, { ids: ["app/web"], from: { _tag: "Namespace", namespace: "app" } })
    expect(asked).toEqual([])
  })
})
