import { Console, Effect } from "effect"
import { StartOutcomes } from "../domain/CliOutput.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { outcomeStatus, startReportLines } from "../terminal/startText.js"
import { exitWith, printJson } from "./output.js"
import { startStamp } from "./startStamp.js"

/**
 * Prints the outcomes of a start (startText.ts), but those `printed` already, or all of them as
 * JSON, and sets the exit status.
 */
export const reportStart = (
  started: { readonly outcomes: ReadonlyArray<StartOutcome>; readonly printed: boolean },
  options: { json: boolean; quiet: boolean; timestamps?: boolean },
) =>
  Effect.gen(function* () {
    if (options.json) {
      yield* printJson(StartOutcomes, started.outcomes)
      const code = outcomeStatus(started.outcomes)
      return code === 0 ? undefined : yield* exitWith(code)
    }
    const { lines, code } = startReportLines(started.outcomes, {
      ...options,
      printed: started.printed,
      stamp: startStamp(options.timestamps === true),
    })
    for (const line of lines) yield* (line.stream === "stderr" ? Console.error : Console.log)(line.text)
    if (code !== 0) yield* exitWith(code)
  })
