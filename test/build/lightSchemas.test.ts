/**
 * scripts/light-schemas.mjs: the bundles build Effect's schemas as plain constructor functions
 * with one statics object per kind, instead of one class each. The same program, bundled with and
 * without the plugin, must print the same: names, checks, decoding and its errors, annotations,
 * JSON Schema, classes, errors and subclasses of schemas, and for every kind its own fields, its
 * annotations keeping the kind, and `make`, `pick` and `omit` called detached. And the plugin must
 * have applied (a schema is no longer a class).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lightSchemas } from "../../scripts/light-schemas.mjs"
import { runBundled } from "./bundledProgram.js"

const PROGRAM = `
import { Either, JSONSchema, ParseResult, Schema } from "effect"
const out = []
const say = (label, value) => out.push(label + ": " + (typeof value === "string" ? value : JSON.stringify(value)))
const Port = Schema.Number.pipe(Schema.int(), Schema.between(1, 65535)).annotations({ identifier: "Port", description: "a TCP port" })
const Daemon = Schema.Struct({
  run: Schema.NonEmptyString,
  port: Schema.optional(Port),
  tags: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  mode: Schema.Literal("a", "b"),
})
class Entry extends Schema.Class("Entry")({ id: Schema.String, n: Schema.NullOr(Schema.Number) }) {
  get label() { return this.id + "#" + this.n }
}
class Oops extends Schema.TaggedError()("Oops", { why: Schema.String }) {}
class Named extends Schema.Struct({ a: Schema.String }) {}
const decode = (s, u) => Either.match(Schema.decodeUnknownEither(s)(u), {
  onLeft: (e) => "error " + ParseResult.TreeFormatter.formatErrorSync(e),
  onRight: (v) => "ok " + JSON.stringify(v),
})
say("make is a class", /^class\\b/.test(Function.prototype.toString.call(Schema.make(Schema.String.ast))))
for (const [name, s] of Object.entries({ Port, Daemon, Entry, Oops, Named, str: Schema.String, union: Schema.Union(Port, Schema.Literal("auto")) })) {
  say(name + " toString", String(s))
  say(name + " isSchema", Schema.isSchema(s))
  say(name + " typeof", typeof s)
}
say("annotated toString", String(Schema.String.annotations({ description: "x" })))
say("annotations kept", JSONSchema.make(Schema.String.annotations({ title: "T", description: "d" })))
say("fields", Object.keys(Daemon.fields))
say("pick", String(Daemon.pick("run")))
say("omit", String(Daemon.omit("run")))
say("make", Daemon.make({ run: "x", mode: "a" }))
say("decode ok", decode(Daemon, { run: "sleep", port: 80, mode: "b" }))
say("decode bad", decode(Daemon, { run: "", port: 0.5, mode: "c" }))
say("class", decode(Entry, { id: "a", n: 1 }))
say("class instance", new Entry({ id: "b", n: null }).label)
say("class error", decode(Entry, { id: 1 }))
say("tagged error", new Oops({ why: "because" }).why + " " + (new Oops({ why: "w" }) instanceof Error))
say("subclass", decode(Named, { a: 1 }))
say("json schema", JSONSchema.make(Daemon))
say("encode", Schema.encodeSync(Schema.NumberFromString)(12))
say("pipe", String(Schema.String.pipe(Schema.minLength(2))))
// every combinator's kind: its own fields, its annotations keeping the kind, its parse and JSON Schema
class Thing { constructor(n) { this.n = n } }
const Fruit = { Apple: "apple", Pear: "pear" }
const Brand = Schema.String.pipe(Schema.brand("Id"))
const Refined = Schema.Number.pipe(Schema.positive())
const Kinds = {
  literal: Schema.Literal("a", "b", 3),
  enums: Schema.Enums(Fruit),
  declare: Schema.instanceOf(Thing),
  union: Schema.Union(Schema.String, Schema.Number),
  tuple: Schema.Tuple(Schema.String, Schema.Number),
  tupleRest: Schema.Tuple([Schema.String], Schema.Number),
  array: Schema.Array(Schema.Number),
  nonEmpty: Schema.NonEmptyArray(Schema.String),
  struct: Daemon,
  record: Schema.Record({ key: Schema.String, value: Schema.Number }),
  brand: Brand,
  refine: Refined,
  transform: Schema.NumberFromString,
}
const OWN = ["literals", "enums", "typeParameters", "members", "elements", "rest", "value", "fields", "records", "key", "from", "to", "filter"]
for (const [name, s] of Object.entries(Kinds)) {
  const a = s.annotations({ description: name + " described", title: name })
  say(name + " own", OWN.filter((k) => k in s).map((k) => k + "=" + (typeof s[k] === "function" ? (Schema.isSchema(s[k]) ? String(s[k]) : "fn") : JSON.stringify(s[k], (_, v) => Schema.isSchema(v) ? String(v) : v))))
  say(name + " annotated own", OWN.filter((k) => k in a).map((k) => k + "=" + (a[k] === s[k] || JSON.stringify(a[k], (_, v) => Schema.isSchema(v) ? String(v) : v) === JSON.stringify(s[k], (_, v) => Schema.isSchema(v) ? String(v) : v))))
  say(name + " annotated", String(a) + " " + JSON.stringify(a.ast.annotations[Symbol.for("effect/annotation/Description")]))
  say(name + " methods", ["make", "pick", "omit", "annotations", "pipe"].map((k) => k + ":" + typeof s[k]))
  say(name + " twice", String(a.annotations({ identifier: name + "Id" })))
  say(name + " refine id", Symbol.for("effect/SchemaId/Refine") in s)
  if (name !== "declare") say(name + " json", JSONSchema.make(a))
}
const samples = { literal: [3, "c"], enums: ["pear", "fig"], declare: [new Thing(1), {}], union: [1, true], tuple: [["a", 1], ["a"]], tupleRest: [["a", 1, 2], [1]], array: [[1, 2], [1, "x"]], nonEmpty: [["a"], []], struct: [{ run: "x", mode: "a" }, { mode: "z" }], record: [{ a: 1 }, { a: "1" }], brand: ["id", 1], refine: [2, -2], transform: ["12", "x"] }
for (const [name, [good, bad]] of Object.entries(samples)) {
  say(name + " good", decode(Kinds[name], good))
  say(name + " bad", decode(Kinds[name], bad))
  say(name + " is", [Schema.is(Kinds[name])(good), Schema.is(Kinds[name])(bad)])
}
const { make: makeDaemon, pick, omit } = Daemon
say("detached make", makeDaemon({ run: "x", mode: "b" }))
say("detached pick", String(pick("mode")))
say("detached omit", String(omit("mode")))
say("brand make", Brand.make("x"))
say("refine make", Refined.make(3))
try { Refined.make(-1) } catch (e) { say("refine make fails", String(e.message).split("\\n")[0]) }
say("record make", Kinds.record.make({ q: 1 }))
class Sub extends Daemon {}
say("subclass fields", Object.keys(Sub.fields) + " " + String(Sub) + " " + decode(Sub, { run: 1 }))
say("subclass of literal", String(class extends Schema.Literal("z") {}) + " " + decode(class extends Schema.Literal("z") {}, "z"))
say("refine from", Refined.from === Schema.Number)
say("transform from to", String(Kinds.transform.from) + " " + String(Kinds.transform.to))
say("optional", String(Schema.Struct({ a: Schema.optionalWith(Schema.Literal("x"), { default: () => "x" }) })))
say("keyof", String(Schema.keyof(Daemon)))
say("TaggedStruct", decode(Schema.TaggedStruct("T", { n: Schema.Number }), { _tag: "T", n: 1 }))
console.log(out.join("\\n"))
`

const dir = mkdtempSync(join(tmpdir(), "light-schemas-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("light schemas (scripts/light-schemas.mjs)", () => {
  it("a bundle with the plugin behaves as one without, and its schemas are not classes", async () => {
    const plain = (await runBundled(dir, PROGRAM, "plain", [])).lines
    const light = (await runBundled(dir, PROGRAM, "light", [lightSchemas])).lines
    expect(plain[0]).toBe("make is a class: true")
    expect(light[0]).toBe("make is a class: false")
    expect(light.slice(1)).toEqual(plain.slice(1))
    expect(light.length).toBeGreaterThan(150)
  }, 60_000)
})
