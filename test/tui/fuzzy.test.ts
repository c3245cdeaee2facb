import { describe, expect, it } from "vitest"
import { fuzzyFilter, fuzzyScore } from "../../src/tui/fuzzy.js"

describe("fuzzyScore", () => {
  it("matches the typed characters in order, not necessarily together, ignoring case", () => {
    expect(fuzzyScore("awb", "app/web")).toBeDefined()
    expect(fuzzyScore("APW", "app/web")).toBeDefined()
    expect(fuzzyScore("wa", "app/web")).toBeUndefined()
    expect(fuzzyScore("webx", "app/web")).toBeUndefined()
    expect(fuzzyScore("", "app/web")).toBe(0)
  })
  it("scores characters that follow each other above scattered ones", () => {
    expect(fuzzyScore("web", "app/web")!).toBeGreaterThan(fuzzyScore("web", "app/w-e-b")!)
  })
  it("scores a match at the start of a word above one inside a word", () => {
    expect(fuzzyScore("api", "shop/api")!).toBeGreaterThan(fuzzyScore("api", "shop/rapid")!)
  })
  it("finds the best of several places the first character occurs", () => {
    // the first w (in wwx) is a poor start; the one after the slash makes `web` together
    expect(fuzzyScore("web", "wwx/web")!).toBe(fuzzyScore("web", "aaa/web")!)
  })
})

describe("fuzzyFilter", () => {
  const ids = ["app/db", "app/web", "shop/worker", "shop/web-admin", "tools/rapid-web"]
  it("keeps the matching items, best first", () => {
    expect(fuzzyFilter(ids, "web", (s) => s)).toEqual(["app/web", "shop/web-admin", "tools/rapid-web"])
    expect(fuzzyFilter(ids, "wkr", (s) => s)).toEqual(["shop/worker"])
  })
  it("matches the namespace as well as the name", () => {
    expect(fuzzyFilter(ids, "shw", (s) => s)).toEqual(["shop/worker", "shop/web-admin"])
    expect(fuzzyFilter(ids, "appdb", (s) => s)).toEqual(["app/db"])
  })
  it("keeps every item, in its order, for a blank query; none for a query nothing matches", () => {
    expect(fuzzyFilter(ids, "  ", (s) => s)).toBe(ids)
    expect(fuzzyFilter(ids, "zzz", (s) => s)).toEqual([])
  })
})
