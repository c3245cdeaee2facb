/**
 * scripts/light-schemas.mjs: the bundles build Effect's schemas as plain constructor functions
 * instead of one class each. The same program, bundled with and without the plugin, must print
 * the same: names, checks, decoding and its errors, annotations, JSON Schema, classes, errors and
 * subclasses of schemas. And the plugin must have applied (a schema is no longer a class).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { build, type Plugin } from "esbuild"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lightSchemas } from "../../scripts/light-schemas.mjs"

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
console.log(out.join("\\n"))
`

const root = resolve(import.meta.dirname, "../..")
const dir = mkdtempSync(join(tmpdir(), "light-schemas-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = async (name: string, plugins: Array<Plugin>) => {
  const outfile = join(dir, `${name}.cjs`)
  await build({
    stdin: { contents: PROGRAM, resolveDir: root, loader: "js" },
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile,
    logLevel: "silent",
    plugins,
  })
  const r = spawnSync(process.execPath, [outfile], { encoding: "utf8" })
  expect(r.stderr).toBe("")
  expect(r.status).toBe(0)
  return r.stdout.split("\n")
}

describe("light schemas (scripts/light-schemas.mjs)", () => {
  it("a bundle with the plugin behaves as one without, and its schemas are not classes", async () => {
    const plain = await run("plain", [])
    const light = await run("light", [lightSchemas])
    expect(plain[0]).toBe("make is a class: true")
    expect(light[0]).toBe("make is a class: false")
    expect(light.slice(1)).toEqual(plain.slice(1))
    expect(light.length).toBeGreaterThan(30)
  }, 60_000)
})
