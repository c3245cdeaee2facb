// @effect/cli 0.77 cannot parse a subcommand that shares the root command's name
// (`supervisor supervisor run`): the span that splits parent from child arguments
// starts at args[0], which is the parent's own name. This makes it start after it.
// See ../shared/EFFECT-V3.md §13.2. Idempotent; fails loudly if the library changed.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
let dir
try {
  dir = require.resolve("@effect/cli/package.json").replace(/package\.json$/, "")
} catch {
  process.exit(0) // not installed (e.g. a production install of the bundle): nothing to patch
}
const from =
  "const [parentArgs, childArgs] = Arr.span(args, arg => !Arr.some(subcommands, ([name]) => name === arg));"
const to =
  "const [parentTail, childArgs] = Arr.span(Arr.drop(args, 1), arg => !Arr.some(subcommands, ([name]) => name === arg));" +
  " const parentArgs = Arr.appendAll(Arr.take(args, 1), parentTail);"
for (const file of ["dist/esm/internal/commandDescriptor.js", "dist/cjs/internal/commandDescriptor.js"]) {
  const path = dir + file
  if (!existsSync(path)) continue
  const src = readFileSync(path, "utf8")
  if (src.includes(to)) continue
  if (!src.includes(from)) throw new Error(`@effect/cli changed; review the patch for ${path}`)
  writeFileSync(path, src.replace(from, to))
}
