/**
 * scripts/droppable-parsers.mjs: in the supervisor's bundle, Effect's compiled parsers can be let
 * go (`globalThis[Symbol.for("supervisor/dropCompiledParsers")]`, called by the collection at rest)
 * and are compiled again at their next use. The same program, bundled with and without the plugin,
 * must print the same before and after a drop (decoders and encoders made at a module's top level,
 * sync, Either and Effect forms, classes, errors), and the dropped parsers' memory must be freed.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { droppableParsers } from "../../scripts/droppable-parsers.mjs"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lazyExpectedKeys } from "../../scripts/lazy-expected-keys.mjs"
import { runBundled } from "./bundledProgram.js"

const PROGRAM = `
import { Effect, Either, ParseResult, Schema } from "effect"
const out = []
const say = (label, value) => out.push(label + ": " + (typeof value === "string" ? value : JSON.stringify(value)))
const Port = Schema.Number.pipe(Schema.int(), Schema.between(1, 65535))
const Daemon = Schema.Struct({ run: Schema.String, port: Schema.optional(Port), tags: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }) })
class Entry extends Schema.Class("Entry")({ id: Schema.String, at: Schema.DateFromString }) {}
const Shape = Schema.Union(Schema.TaggedStruct("A", { a: Schema.NumberFromString }), Schema.TaggedStruct("B", { b: Schema.String }))
// made once at the top level, as modules do
const decodeSync = Schema.decodeUnknownSync(Daemon)
const decodeEither = Schema.decodeUnknownEither(Shape)
const encodeSync = Schema.encodeSync(Entry)
const decodeEffect = Schema.decodeUnknown(Entry)
const round = (k) => {
  say(k + " sync", decodeSync({ run: "x", port: 80 }))
  try { decodeSync({ run: "x", port: 0 }) } catch (e) { say(k + " sync error", e.message) }
  say(k + " either", Either.map(decodeEither({ _tag: "A", a: "12" }), (v) => v.a))
  say(k + " either error", Either.mapLeft(decodeEither({ _tag: "C" }), ParseResult.TreeFormatter.formatErrorSync))
  const entry = Effect.runSync(decodeEffect({ id: "e", at: "2026-01-02T03:04:05.000Z" }))
  say(k + " effect", entry instanceof Entry ? entry.at.toISOString() : "not an Entry")
  say(k + " encode", encodeSync(new Entry({ id: "f", at: new Date(0) })))
  say(k + " is", Schema.is(Daemon)({ run: "y", tags: [] }))
}
round("first")
const drop = globalThis[Symbol.for("supervisor/dropCompiledParsers")]
say("hook", typeof drop)
drop?.()
round("after a drop")
// the memory: parsers of 300 structs of 40 fields each, compiled, then dropped
require("v8").setFlagsFromString("--expose-gc")
const gc = require("vm").runInNewContext("gc")
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed }
const big = Array.from({ length: 300 }, (_, i) => Schema.Struct(Object.fromEntries(Array.from({ length: 40 }, (_, j) => ["f" + i + "_" + j, Schema.optional(Schema.String)]))))
// measured from before the decoders are made: without the plugin they compile when made
const before = heap()
const decoders = big.map((s) => Schema.decodeUnknownSync(s))
decoders.forEach((d) => d({}))
const compiled = heap()
drop?.()
const after = heap()
decoders.forEach((d) => d({}))
console.log(out.join("\\n"))
console.log("memory " + JSON.stringify({ compiled: compiled - before, freed: compiled - after }))
`

const dir = mkdtempSync(join(tmpdir(), "droppable-parsers-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const memory = (lines: Array<string>) =>
  JSON.parse((lines.find((l) => l.startsWith("memory ")) ?? "memory null").slice("memory ".length)) as {
    readonly compiled: number
    readonly freed: number
  }

describe("droppable parsers (scripts/droppable-parsers.mjs)", () => {
  it("a bundle with the plugin decodes and encodes as one without, before and after its parsers are dropped", async () => {
    const plain = await runBundled(dir, PROGRAM, "plain", [lazyExpectedKeys])
    const droppable = await runBundled(dir, PROGRAM, "droppable", [droppableParsers])
    expect(plain.text).toContain("effect/ParseResult/decodeMemoMap")
    expect(droppable.text).not.toContain("effect/ParseResult/decodeMemoMap")
    // the plugin also makes lazy-expected-keys' rewrites (one plugin loads a file)
    expect(droppable.text).toContain("expectedKeySet")
    const results = (lines: Array<string>) =>
      lines.filter((l) => l !== "" && !l.startsWith("memory ") && !l.startsWith("hook"))
    expect(results(droppable.lines)).toEqual(results(plain.lines))
    expect(plain.lines).toContain("hook: undefined")
    expect(droppable.lines).toContain("hook: function")
    // each round printed the same as the first
    const first = results(droppable.lines).filter((l) => l.startsWith("first "))
    expect(first.length).toBeGreaterThan(6)
    expect(
      results(droppable.lines)
        .filter((l) => l.startsWith("after a drop "))
        .map((l) => l.replace("after a drop ", "")),
    ).toEqual(first.map((l) => l.replace("first ", "")))
    // compiled parsers are kept without the plugin, and freed with it
    const kept = memory(plain.lines)
    const dropped = memory(droppable.lines)
    expect(kept.compiled).toBeGreaterThan(1024 * 1024)
    expect(dropped.compiled).toBeGreaterThan(1024 * 1024)
    expect(dropped.freed).toBeGreaterThan(dropped.compiled / 2)
    expect(kept.freed).toBeLessThan(kept.compiled / 2)
  })
})
