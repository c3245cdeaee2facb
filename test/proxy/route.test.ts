import { describe, expect, it } from "vitest"
import { type ProxyTarget, type Resolution, route } from "../../src/proxy/route.js"

const target: ProxyTarget = { _tag: "Target", port: 4100 }
const options = (resolve: (slug: string, worktree?: string) => Resolution) => ({ tld: "localhost", resolve })

describe("route", () => {
  it("routes a host by its slug and worktree label, with the host it was asked for", () => {
    const asked: Array<[string, string | undefined]> = []
    const o = options((slug, worktree) => {
      asked.push([slug, worktree])
      return target
    })
    expect(route("shop.localhost:7080", 0, o)).toEqual({
      _tag: "Target",
      port: 4100,
      host: "shop.localhost:7080",
    })
    expect(route("feature-x.shop.localhost", 0, o)).toMatchObject({ host: "feature-x.shop.localhost" })
    expect(asked).toEqual([
      ["shop", undefined],
      ["shop", "feature-x"],
    ])
    expect(route("example.com", 0, o)).toMatchObject({ _tag: "Failure", status: 404 })
  })

  it("gives the same routing for the same target and host, and a new one for a new target", () => {
    let current: ProxyTarget = target
    const o = options(() => current)
    const first = route("shop.localhost", 0, o)
    expect(route("shop.localhost", 0, o)).toBe(first)
    expect(route("SHOP.localhost", 0, o)).not.toBe(first)
    current = { _tag: "Target", port: 4200 } // the daemon moved: a new target object
    expect(route("shop.localhost", 0, o)).toEqual({ _tag: "Target", port: 4200, host: "shop.localhost" })
  })

  it("keeps routings for a few spellings of a target's host only, and routes the rest all the same", () => {
    const fresh: ProxyTarget = { _tag: "Target", port: 4300 }
    const o = options(() => fresh)
    const hosts = Array.from({ length: 100 }, (_, i) => `shop.localhost:${7000 + i}`)
    const firsts = hosts.map((h) => route(h, 0, o))
    const again = hosts.map((h) => route(h, 0, o))
    const kept = again.filter((r, i) => r === firsts[i]).length
    expect(kept).toBe(16)
    expect(again).toEqual(hosts.map((host) => ({ ...fresh, host })))
  })
})
