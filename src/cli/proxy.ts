import { Command } from "@effect/cli"
import { trustCommand, untrustCommand } from "./proxyTrust.js"

/** `supervisor proxy`: the reverse proxy in front of the daemons (docs/proxy.md). */
export const proxyCommand = Command.make("proxy").pipe(
  Command.withDescription("the HTTPS reverse proxy: https://<slug>.localhost for every daemon"),
  Command.withSubcommands([trustCommand, untrustCommand]),
)
