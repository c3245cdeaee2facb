// Where the C spawn helper (src/process/spawnHelper.c) is once built. From the sources (tests),
// the built one in dist/; the build (scripts/build.mjs) replaces this module with the path next to
// the supervisor's own bundle.
import { fileURLToPath } from "node:url"

export const spawnHelperBinary: string = fileURLToPath(new URL("../../dist/spawn-helper", import.meta.url))
