import { Console, Effect } from "effect"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { exitWith } from "./output.js"
import { startReportLines } from "./startText.js"

/** Prints the outcomes of a start (startText.ts) and sets the exit status. */
export const reportStart = (
  outcomes: ReadonlyArray<StartOutcome>,
  options: { json: boolean; quiet: boolean },
) =>
  Effect.gen(function* () {
    const { lines, code } = startReportLines(outcomes, options)
    for (const line of lines) yield* (line.stream === "stderr" ? Console.error : Console.log)(line.text)
    if (code !== 0) yield* exitWith(code)
  })
