// The options of `supervisor graph` (docs/graph.md): what cli/graph.ts parses and its action
// (actions/graph.ts) receives.
import { Args, type Command, Options } from "@effect/cli"
import { json } from "../options.js"

export const GRAPH_FORMATS = ["text", "mermaid", "dot", "json"] as const

export const graphOptions = {
  ids: Args.text({ name: "id" }).pipe(
    Args.repeated,
    Args.withDescription(
      "draw these daemons and what they depend on (default: every daemon configured here)",
    ),
  ),
  format: Options.choice("format", GRAPH_FORMATS).pipe(
    Options.withDescription("text (a tree), mermaid, dot (Graphviz) or json (the same as --json)"),
    Options.withDefault("text" as const),
  ),
  json,
}
export type GraphOptions = Command.Command.ParseConfig<typeof graphOptions>
