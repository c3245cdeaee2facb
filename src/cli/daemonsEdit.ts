import { Command } from "@effect/cli"
import { addOptions, removeOptions } from "./args/daemonsEdit.js"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

// `supervisor daemons [--json]`, `daemons add ID --run CMD ...`, `daemons remove ID` (alias `rm`):
// the configured daemons, listed and edited in the configuration files (actions/daemonsEdit.ts).

const load = () => import("./actions/daemonsEdit.js")

const add = Command.make("add", addOptions, (o) => lazy(load, (m) => m.add(o))).pipe(
  Command.withDescription("add a daemon to a configuration file (comments and formatting kept)"),
)

const remove = Command.make("remove", removeOptions, (o) => lazy(load, (m) => m.remove(o))).pipe(
  Command.withDescription("remove a daemon's tables from a configuration file (everything else kept)"),
)

export const daemonsCommand = Command.make("daemons", { json }, ({ json }) =>
  lazy(load, (m) => m.list(json)),
).pipe(
  Command.withDescription("list the configured daemons (with their files), or add or remove one"),
  Command.withSubcommands([add, remove]),
)
