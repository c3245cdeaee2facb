// An esbuild plugin: each of Node's built-in modules imported as a namespace or a default
// (`import * as fs from "node:fs"`) is one module of the bundle that re-exports it. Without it,
// each importing module wraps the built-in in an object of its own with a getter per export
// (esbuild's CommonJS interop): 38 modules importing `fs` made ~4,000 getters, each a closure
// with a context of its own, ~0.5 MiB of the supervisor's heap (docs/benchmarks.md, memory per
// subsystem). `require("fs")` in a CommonJS dependency is left as it is.
import { builtinModules } from "node:module"

export const sharedBuiltins = (except = []) => ({
  name: "shared-builtins",
  setup(b) {
    const names = builtinModules.filter((n) => !n.startsWith("_") && !except.includes(n))
    const filter = new RegExp(`^(node:)?(${names.join("|")})$`)
    b.onResolve({ filter }, (args) => {
      if (args.namespace === "shared-builtin") return { path: args.path, external: true }
      if (args.kind !== "import-statement") return undefined
      return { path: args.path.replace(/^node:/, ""), namespace: "shared-builtin" }
    })
    b.onLoad({ filter: /.*/, namespace: "shared-builtin" }, (args) => ({
      // the default is the module itself, as Node gives it to `import fs from "node:fs"`
      contents: `export * from "node:${args.path}"\nexport default require("node:${args.path}")\n`,
      loader: "js",
    }))
  },
})
