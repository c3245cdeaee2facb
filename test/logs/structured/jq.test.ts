import { describe, expect, it } from "vitest"
import { compileJqFilter, evaluate } from "../../../src/logs/jq/eval.js"
import { JqSyntaxError, parseJq } from "../../../src/logs/jq/parse.js"

const run = (expr: string, input: unknown) => evaluate(parseJq(expr), input)
const entry = {
  id: 7,
  message: '{"level":"error","msg":"boom","status":503,"tags":["a","b"],"req":{"path":"/x"}}',
  level: "error",
  fields: { level: "error", msg: "boom", status: 503, tags: ["a", "b"], req: { path: "/x" } },
}

describe("--jq subset", () => {
  it("paths, indexes, iteration and optional access", () => {
    expect(run(".", 1)).toEqual([1])
    expect(run(".fields.req.path", entry)).toEqual(["/x"])
    expect(run('.fields."req"["path"]', entry)).toEqual(["/x"])
    expect(run(".fields.tags[1]", entry)).toEqual(["b"])
    expect(run(".fields.tags[-1]", entry)).toEqual(["b"])
    expect(run(".fields.tags[]", entry)).toEqual(["a", "b"])
    expect(run(".fields.missing.deeper", entry)).toEqual([null])
    expect(run(".id[0]?", entry)).toEqual([])
    expect(() => run(".id[0]", entry)).toThrow(/cannot index number/)
  })

  it("comparisons follow jq's order; and, or, not, //", () => {
    expect(run('.level == "error" and .fields.status >= 500', entry)).toEqual([true])
    expect(run(".fields.status < 500 or .id == 7", entry)).toEqual([true])
    expect(run(".fields.status > 500 | not", entry)).toEqual([false])
    expect(run('null < false, false < true, true < 0, 0 < "", "" < [], [] < {}', null)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ])
    expect(run('.fields.nope // "default"', entry)).toEqual(["default"])
    expect(run("1 + 2 * 3 - 4 / 2, 7 % 3, -(.id)", entry)).toEqual([5, 1, -7])
    expect(run('"a" + "b", [1] + [2], {a:1} + {b:2}', null)).toEqual(["ab", [1, 2], { a: 1, b: 2 }])
  })

  it("functions: select, test, startswith, contains, has, length, keys, map, any, all", () => {
    expect(run('select(.level == "error") | .id', entry)).toEqual([7])
    expect(run('select(.level == "info")', entry)).toEqual([])
    expect(run('.fields.msg | test("BO+M"; "i")', entry)).toEqual([true])
    expect(run('.fields.req.path | startswith("/"), endswith("y")', entry)).toEqual([true, false])
    expect(run('.fields | has("status"), (.tags | contains(["a"])), (keys | length)', entry)).toEqual([
      true,
      true,
      5,
    ])
    expect(run('.fields.tags | map(ascii_upcase) | join(",")', entry)).toEqual(["A,B"])
    expect(run('.fields.tags | any(. == "b"), all(. == "b")', entry)).toEqual([true, false])
    expect(run(".fields.status | tostring | tonumber", entry)).toEqual([503])
    expect(run("{msg: .fields.msg, id}", entry)).toEqual([{ msg: "boom", id: 7 }])
  })

  it("a filter matches when some output is truthy; an error on an entry is no match", () => {
    const f = compileJqFilter('.fields.status >= 500 and (.fields.msg | test("boom"))')
    expect(f(entry)).toBe(true)
    expect(f({ ...entry, fields: { status: 200, msg: "boom" } })).toBe(false)
    expect(f({ id: 1, message: "plain" })).toBe(false) // null >= 500 is false
    const g = compileJqFilter('.fields.msg | test("x")')
    expect(g({ fields: { msg: 5 } })).toBe(false) // test on a number: an error, no match
    expect(compileJqFilter(".fields.tags[]")(entry)).toBe(true)
    expect(compileJqFilter("empty")(entry)).toBe(false)
  })

  it("refuses what the subset does not have, saying so", () => {
    const bad = (expr: string, why: RegExp) => {
      expect(() => compileJqFilter(expr)).toThrow(JqSyntaxError)
      expect(() => compileJqFilter(expr)).toThrow(why)
    }
    bad(".a as $x | $x", /`as` is not supported|variables/)
    bad("reduce .[] as $x (0; . + $x)", /`reduce` is not supported/)
    bad("..", /recursive descent/)
    bad('"\\(.a)"', /interpolation/)
    bad("input", /input\/0 is not a function of --jq/)
    bad("env.HOME", /env\/0 is not a function/)
    bad(".a ==", /unexpected/)
    bad("(.a", /expected "\)"/)
    bad(`${"(".repeat(100)}.${")".repeat(100)}`, /nested too deeply/)
    bad(`.a${" ".repeat(5000)}`, /longer than 4096/)
  })
})
