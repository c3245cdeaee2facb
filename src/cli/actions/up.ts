import { Console, Effect, Either, Option } from "effect"
import { StopResults, UpSummary, type UpSummary as UpSummaryType } from "../../domain/CliOutput.js"
import { Logs, type Selection, Start, Stop } from "../../domain/Command.js"
import { UsageError } from "../../domain/CommandErrors.js"
import { isActive } from "../../domain/DaemonStatus.js"
import { parseHumanDuration } from "../../domain/HumanDuration.js"
import { stopLine } from "../../terminal/stopText.js"
import type { DownOptions, UpOptions } from "../args/up.js"
import { sendCommand } from "../commandClient.js"
import { type Here, here } from "../commandSelection.js"
import { nothingToStart } from "../nothingToStart.js"
import { dim, exitWith, printJson } from "../output.js"
import { knownDaemons } from "../selection.js"
import { handleErrors, loadHere, withClient } from "../session.js"
import { timingLines, timingRecorder } from "../timings.js"
import { LAST_LINES, upRows, upStatus, upSummaryText } from "../upSummary.js"
import { type UpProgress, waitForUp } from "../upWait.js"

// `supervisor up` and `supervisor down` (docs/ci.md): `up` sends the Start command as `start`
// does, follows its events until every daemon is ready (or `--timeout`), prints a summary and
// exits 0 only when all are up; `down` sends Stop for the project's daemons.

/**
 * What `up` and `down` act on: the IDs given, `--all` (every daemon of the configuration seen
 * here), or without either the daemons of the project's files.
 */
const selectionOf = (
  o: { readonly ids: ReadonlyArray<string>; readonly all?: boolean },
  from: Here,
): Selection => ({
  ids: o.ids,
  all: o.all === true,
  ...(o.ids.length === 0 && o.all !== true ? { files: "local" as const } : {}),
  ...(from === undefined ? {} : { from }),
})

/** `--timeout` in milliseconds; a usage error naming the flag for a bad duration. */
const timeoutOf = (o: UpOptions) =>
  Effect.gen(function* () {
    if (Option.isNone(o.timeout)) return Option.none<number>()
    const parsed = parseHumanDuration(o.timeout.value)
    if (Either.isLeft(parsed)) return yield* new UsageError({ message: `--timeout: ${parsed.left}` })
    if (parsed.right <= 0)
      return yield* new UsageError({
        message: `--timeout: ${o.timeout.value} is no time to wait; give e.g. 60s`,
      })
    return Option.some(parsed.right)
  })

/**
 * The last log lines of the daemons still starting, by ID (none for a daemon that never ran):
 * since `sinceOf(id)` when given (those `up` started: not an earlier run's lines).
 */
const lastLines = (ids: ReadonlyArray<string>, sinceOf: (id: string) => number | undefined, from: Here) =>
  Effect.forEach(ids, (id) =>
    sendCommand(
      new Logs({
        selection: { ids: [id], all: false, ...(from === undefined ? {} : { from }) },
        lines: LAST_LINES,
        ...(sinceOf(id) === undefined ? {} : { since: sinceOf(id) }),
        raw: true,
        reason: "cli",
      }),
    ).pipe(
      Effect.map((entries) => [id, entries.map((e) => e.message)] as const),
      Effect.orElseSucceed(() => [id, []] as const),
    ),
  ).pipe(Effect.map((pairs) => new Map<string, ReadonlyArray<string>>(pairs)))

/**
 * Stops what `up` started, dependents first. The supervisor ends its start when `up` leaves the
 * event stream, but a daemon it was spawning at that moment may appear after the first stop: what
 * of `ids` still runs then is stopped once more, and each daemon is reported by its last result.
 */
const stopStarted = (ids: ReadonlyArray<string>, from: Here) =>
  Effect.gen(function* () {
    const stop = (some: ReadonlyArray<string>) =>
      sendCommand(
        new Stop({
          selection: { ids: some, all: false, ...(from === undefined ? {} : { from }) },
          reason: "cli",
        }),
      )
    const first = yield* stop(ids)
    const left = (yield* knownDaemons)
      .filter((k) => ids.includes(k.id.qualified) && isActive(k))
      .map((k) => k.id.qualified)
    if (left.length === 0) return first
    const again = yield* stop(left)
    const latest = new Map([...first, ...again.filter((r) => r.was_running)].map((r) => [r.id, r] as const))
    return [...latest.values()]
  })

/** `supervisor up`: starts the daemons, waits until all are ready, prints the summary. */
export const up = (o: UpOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const timeout = yield* timeoutOf(o)
      const config = yield* loadHere(true)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const from = here(config)
          const progress: UpProgress = o.json ? "none" : process.stderr.isTTY === true ? "spinner" : "lines"
          const command = new Start({ selection: selectionOf(o, from), reason: "cli", wait: "events" })
          const recorder = o.timings ? timingRecorder(Date.now()) : undefined
          const waited = yield* waitForUp(command, {
            timeout,
            exitOnFailure: o.exitOnFailure,
            progress,
            ...(recorder === undefined
              ? {}
              : { observe: (event, index) => Effect.sync(() => recorder.hear(event, index, Date.now())) }),
          }).pipe(
            Effect.map(Option.some),
            Effect.catchTag("NothingSelected", () => Effect.succeed(Option.none())),
          )
          if (Option.isNone(waited)) {
            const empty: UpSummaryType = {
              ok: true,
              elapsed_ms: 0,
              timed_out: false,
              daemons: [],
              stopped: [],
            }
            if (o.json) return yield* printJson(UpSummary, empty)
            const scope = o.ids.length === 0 && !o.all ? "local" : undefined
            return yield* Effect.forEach(nothingToStart(config, scope), (l) => Console.log(l), {
              discard: true,
            })
          }
          const wait = waited.value
          const known = yield* knownDaemons
          const starting = (id: string) =>
            known.some((k) => k.id.qualified === id && k.status.type === "waiting")
          const pending = wait.ids.filter((id) => {
            const s = wait.settled.get(id)
            return s === undefined || s.outcome._tag === "Interrupted" || starting(id)
          })
          const ranBefore = (id: string) => wait.settled.get(id)?.outcome._tag === "AlreadyRunning"
          const output = yield* lastLines(pending, (id) => (ranBefore(id) ? undefined : wait.began), from)
          const ended = wait.timedOut
            ? `not ready when the wait timed out (--timeout ${Option.getOrElse(o.timeout, () => "")})`
            : "not ready when up stopped waiting (--exit-on-failure)"
          const daemons = upRows(wait, known, output, ended)
          const code = upStatus(daemons, wait.settled, wait.timedOut)
          // what up started (not what ran before it), stopped dependents first
          const started = daemons
            .filter((d) => d.status !== "running" && d.status !== "disabled")
            .map((d) => d.id)
          const stopped =
            code !== 0 && o.exitOnFailure && started.length > 0 ? yield* stopStarted(started, from) : []
          const summary: UpSummaryType = {
            ok: code === 0,
            elapsed_ms: Math.max(0, Math.round(wait.elapsedMs)),
            timed_out: wait.timedOut,
            daemons,
            stopped,
          }
          if (o.json) yield* printJson(UpSummary, summary)
          else
            for (const line of upSummaryText(
              summary,
              process.stdout.isTTY ? process.stdout.columns : undefined,
            ))
              yield* Console.log(line)
          // on stderr, after the summary: stdout stays the summary (and with --json its Schema)
          if (recorder !== undefined)
            yield* Effect.forEach(timingLines(recorder.result()), (l) => Console.error(l), { discard: true })
          if (code !== 0) yield* exitWith(code)
        }),
      )
    }),
  )

/** `supervisor down`: stops the project's daemons (or those named), dependents first. */
export const down = (o: DownOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const results = yield* sendCommand(
            new Stop({ selection: selectionOf(o, here(config)), reason: "cli" }),
          )
          if (o.json) return yield* printJson(StopResults, results)
          if (results.every((r) => !r.was_running))
            return yield* Console.log(dim("no daemon of this project is running: nothing to stop"))
          for (const r of results) yield* Console.log(stopLine(r))
        }),
      )
    }),
  )
