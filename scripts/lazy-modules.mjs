// esbuild plugins for modules the supervisor imports but a plain life never uses: each becomes a
// module of getters that load the real one at the first use of an export. The bundle evaluates
// every module it imports at its start, so without them each would hold its heap (and the
// built-in modules it loads) for the supervisor's whole life (docs/benchmarks.md, memory per
// subsystem). Getters, not values: esbuild's interop copies the names, not the values, so it
// does not load the module either.
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

const stub = (file, keys, bind) => {
  // a method of an instance (mime's `getType`) is bound to it; a class or a value is returned as is
  const value = (k) => (bind ? `load()[${k}].bind(load())` : `load()[${k}]`)
  const getters = keys.map((k) => `  get ${JSON.stringify(k)}() { return ${value(JSON.stringify(k))} },`)
  const path = typeof file === "string" ? JSON.stringify(file) : file.expression
  return `let real\nconst load = () => (real ??= require(${path}))\nmodule.exports = {\n${getters.join("\n")}\n}`
}

/**
 * Node's built-in modules `names` (with or without `node:`), wherever they are imported: a
 * temporary file's random name or an API token (`crypto`, ~0.4 MiB), a terminal's keys
 * (`readline`), heap statistics (`v8`).
 */
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
      // the export names, as this Node has them
      const keys = Object.getOwnPropertyNames(require(args.path)).filter((k) => k !== "default")
      return { contents: stub(`node:${args.path}`, keys, false), loader: "js" }
    })
  },
})

/** Where a bundle of dist/ is, for a stub in another bundle of dist/. */
export const nextToBundle = (bundle) => ({
  expression: `require("node:path").join(__dirname, ${JSON.stringify(bundle)})`,
})

/**
 * The package `name` where a module that `importer` matches imports it, with the exports `keys`
 * (`bind`: methods of an instance), loaded at first use. `file`: what is loaded then; by default
 * the package itself, bundled with the importer (its source text then lives in the importer's
 * heap all the same); `nextToBundle(...)`: a bundle of its own in dist/, read only then.
 */
export const lazyPackage = ({ name, importer, keys, bind = false, file = require.resolve(name) }) => {
  const namespace = `lazy-${name}`
  return {
    name: namespace,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, (args) =>
        importer.test(args.importer) ? { path: name, namespace } : undefined,
      )
      b.onLoad({ filter: /.*/, namespace }, () => ({
        contents: stub(file, keys, bind),
        loader: "js",
        resolveDir: process.cwd(),
      }))
    },
  }
}
