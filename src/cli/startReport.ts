import { Console, Effect } from "effect"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { exitWith } from "./output.js"
import { startReportLines } from "./startText.js"

/**
 * Prints the outcomes of a start (startText.ts), but those `printed` already, and sets the exit
 * status.
 */
export const reportStart = (
  started: { readonly outcomes: ReadonlyArray<StartOutcome>; readonly printed: boolean },
  options: { json: boolean; quiet: boolean },
) =>
  Effect.gen(function* () {
    const { lines, code } = startReportLines(started.outcomes, { ...options, printed: started.printed })
    for (const line of lines) yield* (line.stream === "stderr" ? Console.error : Console.log)(line.text)
    if (code !== 0) yield* exitWith(code)
  })
