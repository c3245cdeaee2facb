// Where the proxy's worker bundle is. From the sources (tests), the built one in dist/; the build
// (scripts/build.mjs) replaces this module with the path next to the supervisor's own bundle.
import { fileURLToPath } from "node:url"

export const proxyWorkerFile: string = fileURLToPath(
  new URL("../../../dist/proxy-worker.cjs", import.meta.url),
)
