import { describe, expect, it } from "vitest"
import { compareIds } from "../../src/domain/idOrder.js"

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort(compareIds)

describe("compareIds", () => {
  it("orders IDs ignoring the case of A-Z, lower case first on a tie", () => {
    expect(sorted(["web", "Zed", "aa", "Api", "api", "b"])).toEqual(["aa", "api", "Api", "b", "web", "Zed"])
  })

  it("compares namespaces first, since they lead the qualified ID", () => {
    expect(sorted(["shop/web", "blog/worker", "blog/api", "shop/api"])).toEqual([
      "blog/api",
      "blog/worker",
      "shop/api",
      "shop/web",
    ])
  })

  it("compares digits and punctuation as characters, the same in every locale", () => {
    expect(sorted(["d10", "d2", "d1", "a-b", "a_b", "ab"])).toEqual(["a-b", "a_b", "ab", "d1", "d10", "d2"])
  })

  it("is a total order: equal only for the same ID, antisymmetric", () => {
    const ids = ["a", "A", "b", "B", "é", "É", "z", "Z", "a/b", "A/b"]
    for (const x of ids)
      for (const y of ids) {
        expect(compareIds(x, y) === 0).toBe(x === y)
        expect(Math.sign(compareIds(x, y)) + Math.sign(compareIds(y, x))).toBe(0)
      }
  })
})
