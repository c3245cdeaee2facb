// The options of `supervisor scale` and their type: what the command (cli/scale.ts) parses and
// its action (actions/scale.ts) receives.
import { Args, type Command } from "@effect/cli"
import { json } from "../options.js"

export const scaleOptions = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("a daemon with `instances`")),
  count: Args.integer({ name: "count" }).pipe(
    Args.withDescription("how many of its instances run from now on (1 to 64)"),
  ),
  json,
}
export type ScaleOptions = Command.Command.ParseConfig<typeof scaleOptions>
