// The options of `supervisor attach` and their type: what the command (cli/attach.ts) parses and
// its action (actions/attach.ts) receives.
import { Args, type Command, Options } from "@effect/cli"
import { DEFAULT_DETACH_KEY } from "../../domain/detachKey.js"

export const attachOptions = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("a running daemon with `pty = true`")),
  detachKey: Options.text("detach-key").pipe(
    Options.withDescription(
      "the key that detaches, leaving the daemon running: C-x, x a letter or one of @ [ \\ ] ^ _",
    ),
    Options.withDefault(DEFAULT_DETACH_KEY),
  ),
}
export type AttachOptions = Command.Command.ParseConfig<typeof attachOptions>
