// Where dist/memory-relief.node (src/host/memoryRelief.cc) is once built. From the sources (tests),
// the built one in dist/; the build (scripts/build.mjs) replaces this module with the path next to
// the supervisor's own bundle.
import { fileURLToPath } from "node:url"

export const memoryReliefFile: string = fileURLToPath(
  new URL("../../dist/memory-relief.node", import.meta.url),
)
