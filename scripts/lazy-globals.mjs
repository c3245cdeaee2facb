// esbuild plugin: keeps Node's lazily loaded globals lazy. In Node 20 the first read of the
// global `FormData` (or `fetch`, `Headers`, ...) loads Node's bundled undici: 25-45 ms. The
// @effect/platform API client reads `FormData` on every request, for an `instanceof` check
// of the payload, so every CLI command that talked to the supervisor paid for it. The check
// is rewritten to one that reads no global (a FormData's toString tag is "FormData").
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]@effect[\\/]platform[\\/]dist[\\/](esm|cjs)[\\/]HttpApiClient\.js$/
const check = "request.payload instanceof FormData"
const replacement = 'Object.prototype.toString.call(request.payload) === "[object FormData]"'

export const lazyGlobals = sourcePatch({
  name: "lazy-globals",
  target,
  find: check,
  replace: replacement,
  all: true,
})
