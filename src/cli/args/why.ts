// The options of `supervisor why` (docs/why.md): what cli/why.ts parses and its action
// (actions/why.ts) receives.
import { Args, type Command } from "@effect/cli"
import { json } from "../options.js"

export const whyOptions = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("the daemon to explain")),
  json,
}
export type WhyOptions = Command.Command.ParseConfig<typeof whyOptions>
