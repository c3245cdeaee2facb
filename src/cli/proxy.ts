import { Command } from "@effect/cli"
import { proxyAddOptions, slug } from "./args/proxy.js"
import { lazy } from "./lazy.js"
import { json } from "./options.js"
import { trustCommand, untrustCommand } from "./proxyTrust.js"

// `supervisor proxy add|remove|status`: the slugs of the reverse proxy, kept in the `[slugs]`
// table of the user's configuration (actions/proxy.ts).

const load = () => import("./actions/proxy.js")

const add = Command.make("add", proxyAddOptions, (o) => lazy(load, (m) => m.add(o))).pipe(
  Command.withDescription(
    "name a project's daemon with a slug in the user's configuration (comments kept), and register the project",
  ),
)

const remove = Command.make("remove", { slug }, ({ slug }) => lazy(load, (m) => m.remove(slug))).pipe(
  Command.withDescription("remove a slug from the user's configuration (everything else kept)"),
)

const status = Command.make("status", { json }, ({ json }) => lazy(load, (m) => m.status(json))).pipe(
  Command.withDescription("the proxy's settings, its CA, and every slug with its daemon's status and port"),
)

export const proxyCommand = Command.make("proxy").pipe(
  Command.withDescription(
    "the reverse proxy: https://<slug>.localhost for a daemon; its slugs and its local CA",
  ),
  Command.withSubcommands([add, remove, status, trustCommand, untrustCommand]),
)
