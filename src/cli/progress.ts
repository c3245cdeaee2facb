import { Console, Effect } from "effect"
import type { StartingCommand, WaitMode } from "../domain/Command.js"
import type { CommandError } from "../domain/CommandErrors.js"
import type { StartProgress } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { type Spinner, startSpinner } from "../terminal/spinner.js"
import { outcomeReportLine, waitingLine } from "../terminal/startText.js"
import type { SupervisorClient } from "./client.js"
import { sendCommand, streamCommand } from "./commandClient.js"
import { startStamp } from "./startStamp.js"

/**
 * A start as a transcript on stdout (stderr is not a terminal): each daemon's waiting line once it
 * is spawned, each outcome as it settles. The first event (the upfront waiting list) is the
 * spinner's, not the transcript's.
 */
const transcript = (command: StartingCommand, observe: StartObserver, timestamps: boolean) =>
  streamCommand(command, (event, index) => {
    const stamp = startStamp(timestamps)
    const shown =
      "waiting" in event
        ? index === 0
          ? Effect.void
          : Effect.forEach(event.waiting, (w) => Console.log(stamp(waitingLine(w))))
        : (() => {
            const line = outcomeReportLine(event.outcome)
            return (line.stream === "stderr" ? Console.error : Console.log)(stamp(line.text))
          })()
    return Effect.zipRight(shown, observe(event, index))
  })

/** Hears each event of a start as it comes, besides what the display makes of it. */
export type StartObserver = (event: StartProgress, index: number) => Effect.Effect<void>

/**
 * A start on a terminal (stderr): the spinner (spinner.ts) drawn from the first event (what the
 * start waits for, as the supervisor planned it), then moved by each event; erased before the
 * outcome lines, or when the start is interrupted. No spinner when the start waits for nothing.
 */
export const withSpinner = (command: StartingCommand, observe: StartObserver = () => Effect.void) =>
  Effect.acquireUseRelease(
    Effect.sync(() => ({ spinner: undefined as Spinner | undefined })),
    (state) =>
      streamCommand(command, (event, index) =>
        Effect.sync(() => {
          if (index === 0 && "waiting" in event)
            state.spinner = event.waiting.length > 0 ? startSpinner(event.waiting) : undefined
          else state.spinner?.update(event)
        }).pipe(Effect.zipRight(observe(event, index))),
      ),
    (state) => Effect.sync(() => state.spinner?.stop()),
  )

/**
 * Sends the start command built by `command` for the wait mode it needs: the outcomes alone when
 * the output must stay machine-readable or quiet, else its events, drawn as a spinner or printed
 * as a transcript. `printed`: the outcome lines are printed already (a transcript), only the rest
 * of the report is left.
 */
export const startWithProgress = (
  command: (wait: WaitMode) => StartingCommand,
  options: {
    readonly json: boolean
    readonly quiet: boolean
    /** `settings.general.startup_log_timestamps`: the time before each line of the transcript. */
    readonly timestamps?: boolean
  },
  /** Hears every event (`start --timings`): the start then follows its events in every mode. */
  observe?: StartObserver,
): Effect.Effect<
  { readonly outcomes: ReadonlyArray<StartOutcome>; readonly printed: boolean },
  CommandError,
  SupervisorClient
> =>
  Effect.gen(function* () {
    if ((options.json || options.quiet) && observe !== undefined)
      return { outcomes: yield* streamCommand(command("events"), observe), printed: false }
    if (options.json || options.quiet)
      return { outcomes: yield* sendCommand(command("ready")), printed: false }
    if (process.stderr.isTTY !== true)
      return {
        outcomes: yield* transcript(
          command("events"),
          observe ?? (() => Effect.void),
          options.timestamps === true,
        ),
        printed: true,
      }
    return { outcomes: yield* withSpinner(command("events"), observe), printed: false }
  })
