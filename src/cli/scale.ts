import { Command } from "@effect/cli"
import { scaleOptions } from "./args/scale.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/scale.js")

export const scaleCommand = Command.make("scale", scaleOptions, (o) => lazy(load, (m) => m.scale(o))).pipe(
  Command.withDescription(
    "set how many instances of a daemon with `instances` run: starts the missing ones, stops the highest first",
  ),
)
