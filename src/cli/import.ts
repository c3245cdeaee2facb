import { Command } from "@effect/cli"
import { importOptions } from "./args/import.js"
import { lazy } from "./lazy.js"

export const importCommand = Command.make("import", importOptions, (o) =>
  lazy(
    () => import("./actions/import.js"),
    (m) => m.importAction(o),
  ),
).pipe(
  Command.withDescription(
    "write a supervisor.toml from a Procfile, a PM2 ecosystem file or process-compose YAML",
  ),
)
