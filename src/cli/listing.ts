import { Command } from "@effect/cli"
import { listOptions, statusOptions } from "./args/listing.js"
import { lazy } from "./lazy.js"

export const listCommand = Command.make("list", listOptions, (o) =>
  lazy(
    () => import("./actions/listing.js"),
    (m) => m.list(o),
  ),
).pipe(Command.withDescription("list daemons with their status"))

export const statusCommand = Command.make("status", statusOptions, (o) =>
  lazy(
    () => import("./actions/listing.js"),
    (m) => m.status(o),
  ),
).pipe(Command.withDescription("show one daemon's status"))
