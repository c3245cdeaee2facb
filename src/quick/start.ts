// `supervisor start` without the CLI bundle: for the common forms (`start [IDS..] [--all]
// [--group G] [--force] [--quiet] [--json]`) the launcher sends the Start command of the protocol
// (src/domain/Command.ts, POST /api/commands) with the directory and environment (a strict `from`),
// and the running supervisor selects and starts the daemons as for the full CLI. This process
// prints the same lines as the CLI (src/terminal/startText.ts), draws the same spinner
// (src/terminal/spinner.ts) and exits with the same status. Anything else (other flags, no
// supervisor running, another version, configuration warnings, an ID to complain about, nothing
// selected) resolves false before anything was started or printed, and the full CLI runs.

// the types only (erased by the build): this bundle loads no Effect
import type { Start } from "../domain/Command.js"
import { parseStartArgs, type StartArgs, selectionFrom } from "../domain/quickForms.js"
import type { StartEvent } from "../domain/StartEvent.js"
import { VERSION, VERSION_HEADER } from "../domain/version.js"
import { type Spinner, startSpinner } from "../terminal/spinner.js"
import { outcomeReportLine, outcomeStatus, startReportLines, waitingLine } from "../terminal/startText.js"
import { red } from "../terminal/style.js"
import { lineReader } from "./http1.js"
import { definedEnv, post } from "./request.js"

/** One line of the supervisor's answer: a StartEvent as it encoded it (src/api/commandHandlers.ts). */
const parseEvent = (text: string): StartEvent | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? (value as StartEvent) : undefined
  } catch {
    return undefined
  }
}

const print = (stream: "stdout" | "stderr", text: string) => process[stream].write(`${text}\n`)

/** The selection of a quick command: as typed, read from here (strict: warnings refuse it). */
export const quickSelection = (
  parsed: Pick<StartArgs, "ids" | "all" | "group">,
): typeof Start.Encoded.selection => selectionFrom(parsed, process.cwd(), definedEnv())

/**
 * The Start command of `start ARGS` typed here: strict, so that configuration warnings (which the
 * full CLI prints) refuse it; its events in every case, whose first line says at once that the
 * start is under way.
 */
export const startCommand = (parsed: StartArgs): typeof Start.Encoded => ({
  _tag: "Start",
  selection: quickSelection(parsed),
  force: parsed.force,
  reason: "cli",
  wait: "events",
})

/**
 * Runs `start` through the supervisor and resolves with the exit status once it has printed the
 * outcome (the launcher applies it), or false, with nothing started or printed, for the full CLI
 * to run.
 */
export const quickStart = async (args: ReadonlyArray<string>): Promise<number | false> => {
  const parsed = parseStartArgs(args)
  if (parsed === undefined) return false
  const progress = parsed.json || parsed.quiet ? "none" : process.stderr.isTTY ? "spinner" : "lines"
  // a supervisor of another version refuses it (409), as does one that cannot start the selection
  const response = await post("/api/commands", startCommand(parsed), { [VERSION_HEADER]: VERSION })
  if (response === undefined || response.status !== 200) {
    response?.close()
    return false
  }
  return new Promise((resolve) => {
    let started = false
    let done = false
    let spinner: Spinner | undefined
    const finish = (value: number | false) => {
      done = true
      resolve(value)
    }
    const onEvent = (event: StartEvent | undefined): boolean => {
      if (event === undefined) return false
      const first = !started
      started = true
      if ("waiting" in event || "outcome" in event) {
        if (progress === "spinner") {
          // the first event lists what the start waits for: the spinner starts from it
          if (first && "waiting" in event)
            spinner = event.waiting.length > 0 ? startSpinner(event.waiting) : undefined
          else spinner?.update(event)
        } else if (progress === "lines") {
          // a transcript: what each daemon waits for once spawned (the first event, the upfront
          // list, is the spinner's), its line as soon as it settles
          if ("waiting" in event) {
            if (!first) for (const w of event.waiting) print("stdout", waitingLine(w))
          } else {
            const line = outcomeReportLine(event.outcome)
            print(line.stream, line.text)
          }
        }
        return false
      }
      spinner?.stop()
      spinner = undefined
      // --json: the outcomes as the supervisor encoded them (StartOutcomes, as the CLI prints them)
      const { lines, code } = parsed.json
        ? {
            lines: [{ stream: "stdout" as const, text: JSON.stringify(event.outcomes, null, 2) }],
            code: outcomeStatus(event.outcomes),
          }
        : startReportLines(event.outcomes, { ...parsed, printed: progress === "lines" })
      for (const line of lines) print(line.stream, line.text)
      finish(code)
      return true
    }
    const lost = () => {
      spinner?.stop()
      spinner = undefined
      if (done) return
      // Daemons may have been started: say so rather than start them again through the CLI.
      if (!started) return finish(false)
      print(
        "stderr",
        `${red("error:")} the supervisor stopped answering before the start finished; see \`supervisor list\``,
      )
      finish(1)
    }
    response.receive(
      lineReader((text) => {
        if (!done) onEvent(parseEvent(text))
      }),
      lost,
    )
  })
}
