// The wait of `supervisor up`: the Start command's events (`wait: "events"`) followed as they come,
// each outcome timed from the start of `up` on the client's clock. `--timeout` bounds the whole
// wait and `--exit-on-failure` ends it at the first failure; leaving the event stream ends the
// supervisor's start (what it has spawned keeps starting). Selection, order and readiness are the
// supervisor's (Control), as for `supervisor start`.
import { Clock, Console, Deferred, Duration, Effect, Option } from "effect"
import type { Start } from "../domain/Command.js"
import { succeeded } from "../domain/outcomeKind.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { outcomeLine, waitingLine } from "../terminal/startText.js"
import { streamCommand } from "./commandClient.js"
import { type StartObserver, withSpinner } from "./progress.js"

/** How the wait is shown: a spinner on a terminal, lines on stderr (CI logs), or nothing (`--json`). */
export type UpProgress = "spinner" | "lines" | "none"

/** A daemon's outcome, and when it came (ms since `up` began; undefined when only the last event had it). */
export interface Settled {
  readonly outcome: StartOutcome
  readonly ms: number | undefined
}

/** How the wait ended. */
export interface UpWait {
  /** The daemons in start order: every outcome's once the start ended, else those it planned. */
  readonly ids: ReadonlyArray<string>
  readonly settled: ReadonlyMap<string, Settled>
  /** `--timeout` ended the wait. */
  readonly timedOut: boolean
  /** When `up` began (epoch ms, the client's clock) and how long it waited. */
  readonly began: number
  readonly elapsedMs: number
}

export interface UpWaitOptions {
  /** `--timeout` in milliseconds. */
  readonly timeout: Option.Option<number>
  readonly exitOnFailure: boolean
  readonly progress: UpProgress
  /** Hears every event as it comes (`up --timings`). */
  readonly observe?: StartObserver
}

type Ending =
  | { readonly _tag: "Done"; readonly outcomes: ReadonlyArray<StartOutcome> }
  | { readonly _tag: "Failed" }

/** Sends `command` (a Start with `wait: "events"`) and follows it until it ends, times out or fails. */
export const waitForUp = (command: Start, options: UpWaitOptions) =>
  Effect.gen(function* () {
    const began = yield* Clock.currentTimeMillis
    const planned: Array<string> = []
    const settled = new Map<string, Settled>()
    const failure = yield* Deferred.make<void>()
    const observe: StartObserver = (event, index) =>
      Effect.gen(function* () {
        if (options.observe !== undefined) yield* options.observe(event, index)
        if ("waiting" in event) {
          // the first event is the upfront plan: every daemon the start waits for
          if (index === 0) planned.push(...event.waiting.map((w) => w.id))
          else if (options.progress === "lines")
            yield* Effect.forEach(event.waiting, (w) => Console.error(waitingLine(w)), { discard: true })
          return
        }
        const now = yield* Clock.currentTimeMillis
        settled.set(event.outcome.id, { outcome: event.outcome, ms: now - began })
        if (options.progress === "lines") yield* Console.error(outcomeLine(event.outcome))
        if (options.exitOnFailure && !succeeded(event.outcome)) yield* Deferred.succeed(failure, undefined)
      })
    const started =
      options.progress === "spinner" ? withSpinner(command, observe) : streamCommand(command, observe)
    // the first to end wins: the start's last event, or a failure with --exit-on-failure
    const ending = Effect.raceFirst(
      Effect.map(started, (outcomes): Ending => ({ _tag: "Done", outcomes })),
      Effect.as(Deferred.await(failure), { _tag: "Failed" } as Ending),
    )
    const ended = Option.isSome(options.timeout)
      ? yield* Effect.timeoutOption(ending, Duration.millis(options.timeout.value))
      : Option.some(yield* ending)
    const elapsedMs = (yield* Clock.currentTimeMillis) - began
    if (Option.isSome(ended) && ended.value._tag === "Done") {
      for (const o of ended.value.outcomes)
        if (!settled.has(o.id)) settled.set(o.id, { outcome: o, ms: undefined })
      return {
        ids: ended.value.outcomes.map((o) => o.id),
        settled,
        timedOut: false,
        began,
        elapsedMs,
      } satisfies UpWait
    }
    const ids = [...new Set([...planned, ...settled.keys()])]
    return { ids, settled, timedOut: Option.isNone(ended), began, elapsedMs } satisfies UpWait
  })
