import { Effect } from "effect"
import { directProgram } from "./cli/direct.js"
import { runProgram } from "./cli/program.js"

// The build's code-cache warm-up goes through @effect/cli, so that the cache covers it too.
const direct =
  process.env.SUPERVISOR_WRITE_CODE_CACHE === "1" ? undefined : directProgram(process.argv.slice(2))
if (direct) runProgram(Effect.flatten(Effect.promise(direct)))
else import("./cli/main.js").then((m) => m.runCli(process.argv))
