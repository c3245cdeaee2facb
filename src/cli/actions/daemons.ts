import { Console, Effect, Option } from "effect"
import { scopeOf } from "../../control/selection.js"
import { StartOutcomes, StopResults, ToggleResults } from "../../domain/CliOutput.js"
import { Disable, Enable, type Overrides, Restart, Start, Stop } from "../../domain/Command.js"
import type { Settings } from "../../domain/Settings.js"
import type { StartProgress } from "../../domain/StartEvent.js"
import { NOTHING_TO_STOP, stopLine } from "../../terminal/stopText.js"
import type { RestartOptions, StartOptions, StopOptions, ToggleOptions } from "../args/daemons.js"
import { sendCommand } from "../commandClient.js"
import { type Here, here, selectionOf } from "../commandSelection.js"
import { nothingToStart } from "../nothingToStart.js"
import { cyan, dim, green, note, printJson } from "../output.js"
import { portOverrides } from "../portOverrides.js"
import { startWithProgress } from "../progress.js"
import { readyOverrides } from "../readyFlags.js"
import { isRemote } from "../remote.js"
import { handleErrors, loadHere, withClient } from "../session.js"
import { reportStart } from "../startReport.js"
import { timingLines, timingRecorder } from "../timings.js"
import { remoteSelection, type SelectionFlags } from "./remoteDaemons.js"

// start, stop, restart, enable and disable: each sends its command (src/domain/Command.ts) with
// the selection as typed and the directory it was typed in (`from`); the supervisor selects,
// closes over dependencies, orders and waits. Against a supervisor at a URL, the IDs as the
// remote supervisor knows them, without a directory (remoteDaemons.ts).

/** The readiness and port flags given: their configuration is the local files', not a remote one's. */
const overrideFlags = (o: Partial<StartOptions>): ReadonlyArray<string> => [
  ...(["delay", "output", "http", "port", "cmd"] as const)
    .filter((k) => {
      const value: Option.Option<unknown> | undefined = o[k]
      return value !== undefined && Option.isSome(value)
    })
    .map((k) => (k === "port" ? "--ready-port" : `--${k}`)),
  ...(o.expectedPort !== undefined && o.expectedPort.length > 0 ? ["--expected-port"] : []),
  ...(o.bump !== undefined && Option.isSome(o.bump) ? ["--bump"] : []),
]

/** The readiness and port flags of start and restart, as the command's overrides. */
const overridesOf = (o: StartOptions | RestartOptions, settings: Settings) =>
  Effect.gen(function* () {
    const ready = Option.getOrElse(yield* readyOverrides(o), () => ({}))
    const ports =
      "expectedPort" in o
        ? yield* portOverrides(o, settings.supervisor.port_bump_attempts)
        : { expect: Option.none(), bump: Option.none() }
    const overrides = {
      ...ready,
      ...(Option.isSome(ports.expect) ? { expected_ports: ports.expect.value } : {}),
      ...(Option.isSome(ports.bump) ? { bump: ports.bump.value } : {}),
    } as Overrides
    return Object.keys(overrides).length === 0 ? undefined : overrides
  })

/**
 * What a command acts on, and where the selection is read: here (the files seen from this
 * directory), or with `--url` the remote supervisor's IDs (flags that need the local files refused).
 */
const target = (verb: string, o: SelectionFlags, extra: ReadonlyArray<string>, where: Here) =>
  Effect.gen(function* () {
    if (isRemote()) return { selection: yield* remoteSelection(verb, o, extra), scope: undefined }
    const scope = yield* scopeOf({ ...o, local: o.local === true, global: o.global === true })
    return {
      selection: selectionOf(o, Option.getOrUndefined(scope), where),
      scope: Option.getOrUndefined(scope),
    }
  })

/** Runs a start or restart: the outcomes reported, or `nothing` for an empty selection. */
const startOrRestart = (
  o: {
    readonly json: boolean
    readonly quiet: boolean
    readonly timings?: boolean
    /** `settings.general.startup_log_timestamps` */
    readonly timestamps: boolean
  },
  command: (wait: Start["wait"]) => Start | Restart,
  nothing: Effect.Effect<void>,
) =>
  Effect.suspend(() => {
    const recorder = o.timings === true ? timingRecorder(Date.now()) : undefined
    const observe =
      recorder === undefined
        ? undefined
        : (event: StartProgress, index: number) => Effect.sync(() => recorder.hear(event, index, Date.now()))
    return startWithProgress(command, o, observe).pipe(
      Effect.flatMap((started) => reportStart(started, o)),
      // after the report, whatever its exit status: a failed start's timings tell the most
      Effect.ensuring(
        recorder === undefined
          ? Effect.void
          : Effect.suspend(() =>
              Effect.forEach(timingLines(recorder.result()), (l) => Console.error(l), { discard: true }),
            ),
      ),
      Effect.catchTag("NothingSelected", () =>
        o.json ? printJson(StartOutcomes, []) : o.quiet ? Effect.void : nothing,
      ),
    )
  })

/** `supervisor start`: starts daemons and waits until they are ready. */
export const start = (o: StartOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      const overrides = yield* overridesOf(o, config.settings)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const { selection, scope } = yield* target(
            o.force ? "restart" : "start",
            o,
            overrideFlags(o),
            here(config),
          )
          yield* startOrRestart(
            { ...o, timestamps: config.settings.general.startup_log_timestamps },
            (wait) =>
              new Start({
                selection,
                force: o.force,
                ...(overrides === undefined ? {} : { overrides }),
                reason: "cli",
                wait,
              }),
            Effect.forEach(nothingToStart(config, scope), (l) => Console.log(l), { discard: true }),
          )
        }),
      )
    }),
  )

/**
 * `supervisor stop`: stops daemons (their whole process group), dependents first. `--all` needs no
 * configuration (it stops every running daemon the supervisor knows): a broken file here is a
 * warning and it stops them all; other selections read it.
 */
export const stop = (o: StopOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(
        false,
        o.all
          ? "the configuration here is not needed by stop --all, which stops every running daemon"
          : undefined,
      )
      yield* withClient(
        config,
        Effect.gen(function* () {
          const { selection } = yield* target("stop", o, [], here(config))
          const results = yield* sendCommand(new Stop({ selection, reason: "cli" }))
          if (o.json) return yield* printJson(StopResults, results)
          if (o.quiet) return
          if (results.length === 0) return yield* Console.log(dim(NOTHING_TO_STOP))
          for (const r of results) yield* Console.log(stopLine(r))
        }),
      )
    }),
  )

/** `supervisor restart`: restarts daemons and waits until they are ready. */
export const restart = (o: RestartOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const overrides = yield* overridesOf(o, config.settings)
          const { selection } = yield* target("restart", o, overrideFlags(o), here(config))
          yield* startOrRestart(
            { ...o, timestamps: config.settings.general.startup_log_timestamps },
            (wait) =>
              new Restart({
                selection,
                ...(overrides === undefined ? {} : { overrides }),
                reason: "cli",
                wait,
              }),
            note(dim("no daemon is running: nothing to restart")),
          )
        }),
      )
    }),
  )

/** `supervisor enable` / `disable`. */
export const toggle = (name: "enable" | "disable", o: ToggleOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const { selection } = yield* target(
            name,
            { ids: o.ids, all: false, group: Option.none() },
            [],
            here(config),
          )
          const payload = { selection, reason: "cli" as const }
          const results = yield* sendCommand(name === "enable" ? new Enable(payload) : new Disable(payload))
          if (o.json) return yield* printJson(ToggleResults, results)
          for (const r of results) yield* Console.log(`${green("✓")} ${cyan(r.id)} ${name}d`)
        }),
      )
    }),
  )
