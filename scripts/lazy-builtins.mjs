// esbuild plugin: Node built-in modules the supervisor imports but a plain life never uses (a
// temporary file's random name or an API token, a terminal's keys, heap statistics) become modules
// whose exports load the real one at their first use. The bundle imports every module at its
// start, and `crypto` alone holds ~0.4 MiB (docs/benchmarks.md, memory per subsystem).
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

export const lazyBuiltins = (names) => ({
  name: "lazy-builtins",
  setup(b) {
    const filter = new RegExp(`^(node:)?(${names.join("|")})$`)
    b.onResolve({ filter }, (args) =>
      // the stand-in's own require is of the real module
      args.namespace === "lazy-builtin"
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" },
    )
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const name = args.path
      // the export names, as this Node has them; a getter each, so that esbuild's interop (which
      // copies the names, not the values) does not load the module either
      const keys = Object.getOwnPropertyNames(require(name)).filter((k) => k !== "default")
      const getters = keys.map((k) => `  get ${JSON.stringify(k)}() { return load()[${JSON.stringify(k)}] },`)
      return {
        contents: `let real\nconst load = () => (real ??= require("node:${name}"))\nmodule.exports = {\n${getters.join("\n")}\n}`,
        loader: "js",
      }
    })
  },
})
