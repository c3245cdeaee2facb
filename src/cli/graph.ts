import { Command } from "@effect/cli"
import { graphOptions } from "./args/graph.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/graph.js")

export const graphCommand = Command.make("graph", graphOptions, (o) => lazy(load, (m) => m.graph(o))).pipe(
  Command.withDescription("draw the daemons' dependencies, each with its condition and each daemon's status"),
)
