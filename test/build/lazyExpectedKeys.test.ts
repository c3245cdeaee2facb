/**
 * scripts/lazy-expected-keys.mjs: a struct's parser tells an excess key by a Set of its keys and
 * makes the union of its keys only when it first needs it. The same program, bundled with and
 * without the plugin, must print the same: excess keys refused and kept, with one error or all,
 * symbol keys, index signatures, classes and nested structs, and the errors' texts.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lazyExpectedKeys } from "../../scripts/lazy-expected-keys.mjs"
import { runBundled } from "./bundledProgram.js"

const PROGRAM = `
import { Either, ParseResult, Schema } from "effect"
const out = []
const say = (label, value) => out.push(label + ": " + (typeof value === "string" ? value : JSON.stringify(value)))
const tag = Symbol.for("tag")
const Inner = Schema.Struct({ port: Schema.Number, host: Schema.optional(Schema.String) })
const Daemon = Schema.Struct({ run: Schema.String, inner: Schema.optional(Inner), [tag]: Schema.optional(Schema.String) })
const WithIndex = Schema.Struct({ a: Schema.String }, Schema.Record({ key: Schema.TemplateLiteral("x-", Schema.String), value: Schema.Number }))
const Empty = Schema.Struct({})
class Entry extends Schema.Class("Entry")({ id: Schema.String }) {}
const Many = Schema.Union(Schema.Struct({ _tag: Schema.Literal("A"), a: Schema.Number }), Schema.Struct({ _tag: Schema.Literal("B"), b: Schema.String }))
const show = (s, u, options) => Either.match(Schema.decodeUnknownEither(s, options)(u), {
  onLeft: (e) => "error " + ParseResult.TreeFormatter.formatErrorSync(e),
  onRight: (v) => "ok " + JSON.stringify(v) + (tag in v ? " tag=" + v[tag] : ""),
})
const inputs = [
  { run: "sleep" },
  { run: "sleep", extra: 1 },
  { run: "sleep", extra: 1, more: 2 },
  { run: "sleep", inner: { port: 80, nope: true } },
  { run: "sleep", [tag]: "t" },
  { run: "sleep", [Symbol.for("other")]: "o" },
  { run: 1, extra: 1 },
  { constructor: 1, run: "x" },
  { __proto__: null, run: "y", toString: 2 },
]
const modes = [undefined, { onExcessProperty: "error" }, { onExcessProperty: "preserve" }, { onExcessProperty: "error", errors: "all" }, { onExcessProperty: "preserve", errors: "all" }]
modes.forEach((m, k) => inputs.forEach((u, i) => say("daemon " + k + "." + i, show(Daemon, u, m))))
const indexInputs = [{ a: "1" }, { a: "1", "x-b": 2 }, { a: "1", "x-b": "no" }, { a: "1", y: 3 }, { a: "1", "x-b": 2, y: 3, z: 4 }]
modes.forEach((m, k) => indexInputs.forEach((u, i) => say("index " + k + "." + i, show(WithIndex, u, m))))
modes.forEach((m, k) => say("empty " + k, show(Empty, { a: 1 }, m)))
modes.forEach((m, k) => say("class " + k, show(Entry, { id: "e", extra: 1 }, m)))
modes.forEach((m, k) => say("union " + k, show(Many, { _tag: "B", b: "x", c: 1 }, m)))
say("encode preserve", JSON.stringify(Schema.encodeUnknownEither(Daemon, { onExcessProperty: "preserve" })({ run: "x", extra: 1 })))
say("encode error", Either.isLeft(Schema.encodeUnknownEither(Daemon, { onExcessProperty: "error" })({ run: "x", extra: 1 })))
console.log(out.join("\\n"))
`

const dir = mkdtempSync(join(tmpdir(), "lazy-expected-keys-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("lazy expected keys (scripts/lazy-expected-keys.mjs)", () => {
  it("a bundle with the plugin decodes and fails as one without", async () => {
    const plain = await runBundled(dir, PROGRAM, "plain", [])
    const lazy = await runBundled(dir, PROGRAM, "lazy", [lazyExpectedKeys])
    expect(plain.text).not.toContain("expectedKeySet")
    expect(lazy.text).toContain("expectedKeySet")
    expect(lazy.lines).toEqual(plain.lines)
    expect(lazy.lines.length).toBeGreaterThan(100)
    // the runs did meet excess keys, refused and kept, with the union named in the error
    expect(plain.lines.filter((l) => l.includes("is unexpected, expected:")).length).toBeGreaterThan(10)
    expect(plain.lines.some((l) => l.includes('"extra":1'))).toBe(true)
  }, 60_000)
})
