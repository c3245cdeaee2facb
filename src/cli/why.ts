import { Command } from "@effect/cli"
import { whyOptions } from "./args/why.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/why.js")

export const whyCommand = Command.make("why", whyOptions, (o) => lazy(load, (m) => m.why(o))).pipe(
  Command.withDescription("explain why a daemon is not running or not ready"),
)
