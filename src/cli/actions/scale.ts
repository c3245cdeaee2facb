// `supervisor scale api 5` (docs/replicas.md): sends the Scale command with the directory the ID
// was typed in; the configuration file is left as it is.
import { Console, Effect, Either, Schema } from "effect"
import { ScaleResult, type StopResult } from "../../domain/CliOutput.js"
import { Scale } from "../../domain/Command.js"
import { UsageError } from "../../domain/CommandErrors.js"
import { InstanceCount, MAX_INSTANCES } from "../../domain/Instances.js"
import { startReportLines } from "../../terminal/startText.js"
import type { ScaleOptions } from "../args/scale.js"
import { sendCommand } from "../commandClient.js"
import { here } from "../commandSelection.js"
import { cyan, dim, exitWith, green, printJson } from "../output.js"
import { withSupervisor } from "../session.js"

const stopLine = (r: StopResult) =>
  `${green("✓")} ${cyan(r.id)} ${r.was_running ? "stopped" : "was not running"}${r.killed ? dim(" (killed with SIGKILL)") : ""}`

export const scale = (o: ScaleOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      if (Either.isLeft(Schema.decodeUnknownEither(InstanceCount)(o.count)))
        return yield* new UsageError({
          message: `scale ${o.id} ${o.count}: the count must be a whole number from 1 to ${MAX_INSTANCES}`,
        })
      const where = here(config)
      const r = yield* sendCommand(
        new Scale({
          id: o.id,
          count: o.count,
          ...(where === undefined ? {} : { from: where }),
          reason: "cli",
        }),
      )
      // the instances that ran already are not news: only those started now are reported
      const fresh = r.started.filter((s) => s._tag !== "AlreadyRunning")
      const { lines, code } = startReportLines(fresh, { quiet: false, printed: false })
      if (o.json) yield* printJson(ScaleResult, r)
      else {
        yield* Console.log(`${green("✓")} ${cyan(r.daemon)} scaled from ${r.previous} to ${r.count}`)
        for (const s of r.stopped) yield* Console.log(stopLine(s))
        if (fresh.length > 0)
          for (const line of lines) yield* (line.stream === "stderr" ? Console.error : Console.log)(line.text)
      }
      if (code !== 0) yield* exitWith(code)
    }),
  )
