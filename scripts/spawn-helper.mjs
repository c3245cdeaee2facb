// Builds dist/spawn-helper from src/process/spawnHelper.c (scripts/c-program.mjs). Not built: the
// supervisor uses its Perl helper (src/process/spawnHelper.ts). The tests require it built.
import { buildCProgram } from "./c-program.mjs"

export const buildSpawnHelper = () =>
  buildCProgram("src/process/spawnHelper.c", "dist/spawn-helper", {
    without: "the supervisor uses its Perl helper",
  })
