// `supervisor send ID TEXT... [--keys KEY...] [--enter]` (docs/attach.md): the Input command, sent
// with the directory the ID was typed in.
import { Console, Effect } from "effect"
import { InputResult } from "../../domain/CliOutput.js"
import { Input } from "../../domain/Command.js"
import type { SendOptions } from "../args/send.js"
import { sendCommand } from "../commandClient.js"
import { here } from "../commandSelection.js"
import { cyan, green, printJson } from "../output.js"
import { withSupervisor } from "../session.js"

export const send = (o: SendOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const where = here(config)
      const keys = o.keys.flatMap((k) => k.split(/\s+/)).filter((k) => k !== "")
      const r = yield* sendCommand(
        new Input({
          id: o.id,
          ...(o.text.length === 0 ? {} : { text: o.text.join(" ") }),
          ...(keys.length === 0 ? {} : { keys }),
          enter: o.enter,
          ...(where === undefined ? {} : { from: where }),
          reason: "cli",
        }),
      )
      if (o.json) yield* printJson(InputResult, r)
      else
        yield* Console.log(`${green("✓")} sent ${r.bytes} byte${r.bytes === 1 ? "" : "s"} to ${cyan(r.id)}`)
    }),
  )
