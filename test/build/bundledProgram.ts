/**
 * A program bundled by esbuild with the given plugins (the build's source patches) and run by
 * Node: the lines it printed and the bundle's text, for tests comparing bundles with and without
 * a patch. `dir` holds the bundles.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { build, type Plugin } from "esbuild"
import { expect } from "vitest"

const root = resolve(import.meta.dirname, "../..")

export const runBundled = async (
  dir: string,
  program: string,
  name: string,
  plugins: Array<Plugin>,
): Promise<{ readonly lines: Array<string>; readonly text: string }> => {
  const outfile = join(dir, `${name}.cjs`)
  await build({
    stdin: { contents: program, resolveDir: root, loader: "js" },
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
  return { lines: r.stdout.split("\n"), text: readFileSync(outfile, "utf8") }
}
