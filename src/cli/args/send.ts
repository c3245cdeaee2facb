// The options of `supervisor send` (docs/attach.md): what cli/send.ts parses and its action
// (actions/send.ts) receives.
import { Args, type Command, Options } from "@effect/cli"
import { json } from "../options.js"

export const sendOptions = {
  id: Args.text({ name: "id" }).pipe(
    Args.withDescription('a running daemon with pty = true or stdin = "pipe"'),
  ),
  text: Args.text({ name: "text" }).pipe(
    Args.repeated,
    Args.withDescription("the text to type, its words joined by spaces"),
  ),
  keys: Options.text("keys").pipe(
    Options.repeated,
    Options.withDescription(
      "keys to type after the text, named as tmux names them: Enter, Tab, Escape, Up, C-c, M-x... (repeat it, or several in one value separated by spaces)",
    ),
  ),
  enter: Options.boolean("enter").pipe(Options.withDescription("press Enter at the end")),
  json,
}
export type SendOptions = Command.Command.ParseConfig<typeof sendOptions>
