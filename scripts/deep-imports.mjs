// esbuild plugin: rewrites our barrel imports (`import { Effect, Schema } from "effect"`)
// into one import per module (`import * as Effect from "effect/Effect"`), as the Effect
// packages themselves import each other. Needed since the CLI loads commands lazily
// (src/cli/lazy.ts): esbuild wraps every module reachable from a dynamic import, and a
// wrapped barrel evaluates every module it re-exports, used or not, at start-up.
import { readFile } from "node:fs/promises"
import { resolve, sep } from "node:path"

// Our sources only (the Effect packages ship TypeScript under their own src/ too).
const ours = resolve("src") + sep
const isOurs = (path) => path.startsWith(ours) && path.endsWith(".ts")

const barrels = /^(effect|@effect\/cli|@effect\/platform)$/
// The barrel of `effect` also re-exports a few functions of effect/Function by name.
const fromFunction = new Set(["absurd", "flow", "hole", "identity", "pipe", "unsafeCoerce"])
const importDecl = /import\s*(type\s+)?\{([^}]*)\}\s*from\s*"(effect|@effect\/cli|@effect\/platform)"/g

const rewrite = (_all, typeOnly, names, pkg) => {
  if (typeOnly) return ""
  return names
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("type "))
    .map((s) => {
      const [name, alias = name] = s.split(/\s+as\s+/)
      if (pkg === "effect" && fromFunction.has(name))
        return `import { ${name} as ${alias} } from "effect/Function"`
      return `import * as ${alias} from "${pkg}/${name}"`
    })
    .join(";")
}

export const deepImports = {
  name: "deep-imports",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!isOurs(args.path)) return undefined
      const source = await readFile(args.path, "utf8")
      return { contents: source.replace(importDecl, rewrite), loader: "ts" }
    })
    // Anything the rewrite missed (e.g. `export ... from "effect"`) must not reach a barrel.
    b.onResolve({ filter: barrels }, (args) =>
      isOurs(args.importer)
        ? { errors: [{ text: `${args.path}: import from a module (deep-imports.mjs missed this one)` }] }
        : undefined,
    )
  },
}
