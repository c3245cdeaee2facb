// `supervisor why ID` (docs/why.md): the Explain command, printed one reason per line, a
// dependency's reasons indented below its dependent's, the telling lines of output dimmed.
import { Console, Effect } from "effect"
import { Explain } from "../../domain/Command.js"
import { Explanation } from "../../domain/Explain.js"
import type { WhyOptions } from "../args/why.js"
import { sendCommand } from "../commandClient.js"
import { here } from "../commandSelection.js"
import { dim, green, printJson, yellow } from "../output.js"
import { withSupervisor } from "../session.js"

export const why = (o: WhyOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const where = here(config)
      const e = yield* sendCommand(
        new Explain({ id: o.id, ...(where === undefined ? {} : { from: where }), reason: "cli" }),
      )
      if (o.json) return yield* printJson(Explanation, e)
      for (const r of e.reasons) {
        const indent = "  ".repeat(r.depth)
        const mark = r.kind === "ready" || r.kind === "completed" ? green("✓") : yellow("•")
        yield* Console.log(`${indent}${mark} ${r.text}`)
        for (const line of r.output) yield* Console.log(dim(`${indent}  │ ${line}`))
      }
    }),
  )
