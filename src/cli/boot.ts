import { Command } from "@effect/cli"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

// `supervisor boot enable|disable|status`: start the supervisor (and the boot_start daemons) at
// boot or login, through systemd (Linux) or launchd (macOS). docs/boot.md.
const load = () => import("./actions/boot.js")

const enable = Command.make("enable", { json }, ({ json }) => lazy(load, (m) => m.enable(json))).pipe(
  Command.withDescription("start the supervisor at boot: write and link its systemd unit (or launchd agent)"),
)
const disable = Command.make("disable", { json }, ({ json }) => lazy(load, (m) => m.disable(json))).pipe(
  Command.withDescription("no longer start the supervisor at boot: remove its unit (or agent)"),
)
const status = Command.make("status", { json }, ({ json }) => lazy(load, (m) => m.status(json))).pipe(
  Command.withDescription("is the supervisor started at boot? the file, and whether it runs this CLI"),
)

export const bootCommand = Command.make("boot").pipe(
  Command.withDescription("start the supervisor at boot (systemd, launchd)"),
  Command.withSubcommands([enable, disable, status]),
)
