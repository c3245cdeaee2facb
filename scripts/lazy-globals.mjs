// esbuild plugin: keeps Node's lazily loaded globals lazy. In Node 20 the first read of the
// global `FormData` (or `fetch`, `Headers`, ...) loads Node's bundled undici: 25-45 ms. The
// @effect/platform API client reads `FormData` on every request, for an `instanceof` check
// of the payload, so every CLI command that talked to the supervisor paid for it. The check
// is rewritten to one that reads no global (a FormData's toString tag is "FormData"). The
// build fails if the code it rewrites is gone, so that an upgrade cannot undo this silently.
import { readFile } from "node:fs/promises"

const target = /[\\/]@effect[\\/]platform[\\/]dist[\\/](esm|cjs)[\\/]HttpApiClient\.js$/
const check = "request.payload instanceof FormData"
const replacement = 'Object.prototype.toString.call(request.payload) === "[object FormData]"'

export const lazyGlobals = {
  name: "lazy-globals",
  setup(b) {
    b.onLoad({ filter: target }, async (args) => {
      const source = await readFile(args.path, "utf8")
      if (!source.includes(check))
        return { errors: [{ text: `${args.path}: "${check}" not found (see scripts/lazy-globals.mjs)` }] }
      return { contents: source.replaceAll(check, replacement), loader: "js" }
    })
  },
}
