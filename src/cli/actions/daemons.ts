import { Console, Effect, Option } from "effect"
import { scopedIds, scopeOf, selectIds } from "../../control/selection.js"
import { StartOutcomes, type StopResult, StopResults, ToggleResults } from "../../domain/CliOutput.js"
import { isActive } from "../../domain/DaemonStatus.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import type { RestartOptions, StartOptions, StopOptions, ToggleOptions } from "../args/daemons.js"
import { SupervisorClient } from "../client.js"
import { nothingToStart } from "../nothingToStart.js"
import { cyan, dim, green, note, printJson } from "../output.js"
import { checkBumpApplies, portOverrides, withPorts } from "../portOverrides.js"
import { startWithProgress } from "../progress.js"
import { readyOverrides, withReadiness } from "../readyFlags.js"
import { isRemote } from "../remote.js"
import { definitionsFor, knownDaemons } from "../selection.js"
import { handleErrors, loadHere, withClient, withSupervisor } from "../session.js"
import { withSlugProjects } from "../slugIds.js"
import { reportStart } from "../startReport.js"
import { remoteStart, remoteToggle } from "./remoteDaemons.js"

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

/** `supervisor start`: starts daemons and waits until they are ready. */
export const start = (o: StartOptions) =>
  isRemote() ? remoteStart(o.force ? "restart" : "start", o, overrideFlags(o)) : startHere(o)

const startHere = (o: StartOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const overrides = yield* readyOverrides(o)
      const ports = yield* portOverrides(o)
      const config = yield* loadHere(true)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const known = yield* knownDaemons
          const scope = yield* scopeOf(o)
          // a slug typed as an ID brings its project's daemons (their definitions start them)
          const withSlugs = yield* withSlugProjects(config, o.ids)
          const selected = Option.isSome(scope)
            ? scopedIds(config, scope.value)
            : yield* selectIds(withSlugs, known, o, () => Object.keys(config.daemons))
          if (selected.length === 0) {
            if (o.json) return yield* printJson(StartOutcomes, [])
            if (o.quiet) return
            const lines = nothingToStart(config, Option.getOrUndefined(scope))
            return yield* Effect.forEach(lines, (l) => Console.log(l), { discard: true })
          }
          const defs = (yield* definitionsFor(selected, withSlugs)).map((d) =>
            withPorts(withReadiness(d, overrides), ports),
          )
          yield* checkBumpApplies(defs, ports)
          yield* reportStart(yield* startWithProgress(defs, o, withSlugs, known), o)
        }),
      )
    }),
  )

/** The line of one stop result. */
const stopLine = (r: StopResult) =>
  !r.was_running
    ? `${dim("•")} ${cyan(r.id)} was not running`
    : r.killed
      ? `${green("✓")} ${cyan(r.id)} stopped ${dim(`(killed with SIGKILL: it did not exit on its stop signal within daemons.${r.id.slice(r.id.indexOf("/") + 1)}.stop_signal.timeout, or settings.supervisor.stop_timeout when unset)`)}`
      : `${green("✓")} ${cyan(r.id)} stopped`

/**
 * `supervisor stop`: stops daemons (their whole process group). `--all` needs no configuration (it stops every running daemon the supervisor
 * knows): a broken file here is a warning and it stops them all; other selections read it.
 */
export const stop = (o: StopOptions) =>
  // with --url the same: the supervisor's daemons, by the IDs it knows (session.ts reads no files)
  stopWith(
    o.all
      ? "the configuration here is not needed by stop --all, which stops every running daemon"
      : undefined,
    (config) =>
      Effect.gen(function* () {
        const c = yield* SupervisorClient
        const known = yield* knownDaemons
        const running = () => known.filter(isActive).map((k) => k.id.qualified)
        const scope = yield* scopeOf(o)
        const selected = Option.isSome(scope)
          ? scopedIds(config, scope.value).filter((id) => running().includes(id))
          : yield* selectIds(yield* withSlugProjects(config, o.ids), known, o, running)
        // configured here but never run: the supervisor does not know them, so none runs
        const unknown = selected.filter((id) => !known.some((k) => k.id.qualified === id))
        const present = selected.filter((id) => !unknown.includes(id))
        const stopped =
          present.length === 0 ? [] : yield* c.api.cli.stop({ payload: { ids: present } }).pipe(Effect.orDie)
        const results: ReadonlyArray<StopResult> = [
          ...unknown.map((id) => ({ id, was_running: false, killed: false })),
          ...stopped,
        ]
        if (o.json) return yield* printJson(StopResults, results)
        if (o.quiet) return
        if (results.length === 0) return yield* Console.log(dim("no daemon is running: nothing to stop"))
        for (const r of results) yield* Console.log(stopLine(r))
      }),
  )

const stopWith = <A, E extends { readonly _tag: string; readonly message?: string }, R>(
  unneeded: string | undefined,
  f: (config: ResolvedConfig) => Effect.Effect<A, E, R>,
) => handleErrors(Effect.flatMap(loadHere(false, unneeded), (config) => withClient(config, f(config))))

/** `supervisor restart`: restarts daemons and waits until they are ready. */
export const restart = (o: RestartOptions) =>
  isRemote() ? remoteStart("restart", o, overrideFlags(o)) : restartHere(o)

const restartHere = (o: RestartOptions) =>
  withSupervisor(true, (config) =>
    Effect.gen(function* () {
      const overrides = yield* readyOverrides(o)
      const known = yield* knownDaemons
      // --all: every daemon that runs, ad-hoc ones included
      const running = () => known.filter(isActive).map((k) => k.id.qualified)
      const scope = yield* scopeOf(o)
      const withSlugs = yield* withSlugProjects(config, o.ids)
      const selected = Option.isSome(scope)
        ? scopedIds(config, scope.value).filter((id) => running().includes(id))
        : yield* selectIds(withSlugs, known, o, running)
      if (selected.length === 0) {
        if (!o.quiet && !o.json) yield* note(dim("no daemon is running: nothing to restart"))
        return o.json ? yield* printJson(StartOutcomes, []) : undefined
      }
      const defs = (yield* definitionsFor(selected, withSlugs)).map((d) => withReadiness(d, overrides))
      yield* reportStart(yield* startWithProgress(defs, { ...o, force: true }, withSlugs, known), o)
    }),
  )

/** `supervisor enable` / `disable`. */
export const toggle = (name: "enable" | "disable", o: ToggleOptions) =>
  isRemote() ? remoteToggle(name, o) : toggleHere(name, o)

const toggleHere = (name: "enable" | "disable", o: ToggleOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const c = yield* SupervisorClient
      const known = yield* knownDaemons
      const selected = yield* selectIds(
        config,
        known,
        { ids: o.ids, all: false, group: Option.none() },
        () => [],
        `No daemon ID specified: name the daemons to ${name}`,
      )
      const defs = yield* definitionsFor(selected, config)
      yield* c.api.cli
        .toggle({ payload: { definitions: defs, enabled: name === "enable" } })
        .pipe(Effect.orDie)
      if (o.json)
        return yield* printJson(
          ToggleResults,
          selected.map((id) => ({ id, enabled: name === "enable" })),
        )
      for (const id of selected) yield* Console.log(`${green("✓")} ${cyan(id)} ${name}d`)
    }),
  )
