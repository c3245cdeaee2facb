import { Command } from "@effect/cli"
import { downOptions, upOptions } from "./args/up.js"
import { lazy } from "./lazy.js"

// CI mode (docs/ci.md): `up` starts a stack and waits until it is ready, `down` stops it.

const load = () => import("./actions/up.js")

export const upCommand = Command.make("up", upOptions, (o) => lazy(load, (m) => m.up(o))).pipe(
  Command.withDescription("start the project's daemons, wait until all are ready and print a summary (CI)"),
)

export const downCommand = Command.make("down", downOptions, (o) => lazy(load, (m) => m.down(o))).pipe(
  Command.withDescription("stop the project's daemons, dependents first (after up)"),
)

/** Both, for the command tree. */
export const ciCommands = [upCommand, downCommand] as const
