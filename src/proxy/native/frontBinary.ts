// Where the native front is (src/proxy/native/front.c, built into dist/proxy-front by
// scripts/build.mjs where a C compiler is at hand), unless SUPERVISOR_PROXY_FRONT=node asks for
// the worker's own listener. The worker runs from dist/, next to it.
import { accessSync, constants } from "node:fs"
import { join } from "node:path"

export const frontBinary = (): string | undefined => {
  if (process.env.SUPERVISOR_PROXY_FRONT === "node" || process.platform !== "linux") return undefined
  // only the bundled worker (CommonJS) has __dirname
  if (typeof __dirname !== "string") return undefined
  const file = join(__dirname, "proxy-front")
  try {
    accessSync(file, constants.X_OK)
    return file
  } catch {
    return undefined
  }
}
