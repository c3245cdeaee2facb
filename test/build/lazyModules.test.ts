/**
 * scripts/lazy-modules.mjs: a package imported where `importer` matches is evaluated at the first
 * use of an export, not when the bundle starts; its methods keep their instance (`bind`); an
 * importer the pattern does not match gets the package as it is. A built-in module made lazy is
 * not loaded until used. Real bundles of small programs, run in child processes.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { build } from "esbuild"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lazyBuiltins, lazyPackage } from "../../scripts/lazy-modules.mjs"

const dir = mkdtempSync(join(tmpdir(), "lazy-modules-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// a package whose evaluation is seen: an instance whose method needs its `this`
const pkg = join(dir, "node_modules", "probe-pkg")
mkdirSync(pkg, { recursive: true })
writeFileSync(
  join(pkg, "index.js"),
  `globalThis.evaluated = (globalThis.evaluated ?? 0) + 1
class Probe { constructor() { this.word = "hi" } hello(n) { return this.word + n } }
module.exports = new Probe()
`,
)

const bundle = async (name: string, source: string, plugins: Array<unknown>) => {
  const entry = join(dir, `${name}.mjs`)
  writeFileSync(entry, source)
  const outfile = join(dir, `${name}.cjs`)
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    logLevel: "silent",
    nodePaths: [join(dir, "node_modules")],
    plugins: plugins as never,
  })
  return outfile
}

/** Runs `script` after requiring the bundle as `m`, from a file (`node -e` loads `crypto` itself). */
const run = (file: string, script: string) => {
  const main = `${file}.main.cjs`
  writeFileSync(main, `const m = require(${JSON.stringify(file)}); ${script}\n`)
  const r = spawnSync(process.execPath, [main], { encoding: "utf8" })
  expect(r.stderr).toBe("")
  return r.stdout.trim()
}

const program = `import probe from "probe-pkg"\nexport const call = () => probe.hello(1)\n`

describe("lazyPackage", () => {
  const plugin = (importer: RegExp) =>
    lazyPackage({ name: "probe-pkg", importer, keys: ["hello"], bind: true, file: join(pkg, "index.js") })

  it("evaluates the package at the first use of an export, once, with its methods bound", async () => {
    const file = await bundle("lazy", program, [plugin(/lazy\.mjs$/)])
    expect(
      run(file, "console.log(globalThis.evaluated ?? 0, m.call(), m.call(), globalThis.evaluated)"),
    ).toBe("0 hi1 hi1 1")
  })

  it("leaves the package as it is where the importer does not match", async () => {
    const file = await bundle("eager", program, [plugin(/elsewhere/)])
    expect(run(file, "console.log(globalThis.evaluated ?? 0, m.call())")).toBe("1 hi1")
  })
})

describe("lazyBuiltins", () => {
  it("loads a built-in module at the first use of an export", async () => {
    const file = await bundle(
      "builtin",
      `import { createHash } from "node:crypto"\nexport const hash = (t) => createHash("sha256").update(t).digest("hex").slice(0, 8)\n`,
      [lazyBuiltins(["crypto"])],
    )
    const loaded = "process.moduleLoadList.includes('NativeModule crypto')"
    expect(run(file, `console.log(${loaded}, m.hash("abc"), ${loaded})`)).toBe("false ba7816bf true")
  })
})
