import { FileSystem } from "@effect/platform"
import { Context, Effect, Either, Layer, Option, Stream, SubscriptionRef } from "effect"
import { ConfigLoader } from "../config/ConfigLoader.js"
import type { LoadOptions } from "../config/Loader.js"
import type { ScaledCounts } from "../config/replicas.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { gitWorktreeDir } from "../config/worktree.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { Command } from "../domain/Command.js"
import { ConfigUnusable, type UnknownDaemon, UsageError } from "../domain/CommandErrors.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { isActive } from "../domain/DaemonStatus.js"
import { stopLevels } from "../domain/dependencyLevels.js"
import type { Reason } from "../domain/Reason.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { Settings } from "../domain/Settings.js"
import { withSlugs } from "../domain/slugs.js"
import { LogStore } from "../logs/LogStore.js"
import { ProcessSampler } from "../process/ProcessSampler.js"
import { ProjectRegistry } from "../registry/ProjectRegistry.js"
import { definitionsOf } from "../registry/snapshot.js"
import { StateStore } from "../state/StateStore.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { type DaemonNotFound, daemonNotFound } from "../supervisor/errors.js"
import { daemonUsage } from "../supervisor/resourceUsage.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { awaitCompletion, completedHereById } from "./completion.js"
import { type CommandResult, type HandleDeps, makeHandle, type SinkOf } from "./handle.js"
import { mergeDefinitions, mergeListing, withinScale, withScaled } from "./listing.js"
import type { StartPlan, StopResult } from "./plan.js"
import { eventWithProxyUrls, withProxyUrl } from "./proxyOutcomes.js"
import { proxyView } from "./proxyView.js"
import { makeRestartsUnderway } from "./restarting.js"
import { forgetStaleCounts } from "./scale.js"
import { resolveId } from "./selection.js"
import { startEvents } from "./startEvents.js"
import { startWithDependencies } from "./startOrder.js"

export interface ControlShape {
  /**
   * Handles one command of the protocol (src/domain/Command.ts): every front-end and background
   * actor sends these. `sink` hears a start's progress when the command asks for `wait: "events"`.
   */
  readonly handle: <C extends Command>(command: C, sink?: SinkOf<C>) => CommandResult<C>
  /**
   * Every daemon the supervisor runs or ran, plus those of the known projects (their live
   * configuration: ProjectRegistry) that never ran (`available`, or `disabled`); with `usage`,
   * memory, CPU and the active port from /proc. With `ids`, only those daemons' entries (an
   * unknown ID has none): the entry the event stream sends after an event about a daemon.
   */
  readonly listing: (options: ListingOptions) => Effect.Effect<ReadonlyArray<ApiDaemonEntry>>
  /** One daemon as `listing` shows it; a never-run daemon of any known project too. */
  readonly entry: (id: string) => Effect.Effect<ApiDaemonEntry, DaemonNotFound>
  /** The listing seen from a CLI's directory (`list --json`); undefined when the CLI must say more (warnings). */
  readonly listFrom: (options: LoadOptions) => Effect.Effect<ReadonlyArray<ApiDaemonEntry> | undefined>
  /**
   * An ID as typed in a CLI's directory, resolved as the CLI resolves it, with the settings the
   * CLI sees there; fails with why the CLI must do it itself (configuration warnings or errors,
   * an unknown or ambiguous ID).
   */
  readonly resolveFrom: (
    options: LoadOptions,
    typed: string,
  ) => Effect.Effect<
    { readonly id: string; readonly settings: Settings },
    ConfigUnusable | UnknownDaemon | UsageError
  >
  /** Watch's report on a daemon's `watch` files: why they cannot be watched, or `undefined` once they are. */
  readonly reportWatchProblem: (id: string, problem: string | undefined) => Effect.Effect<void>
  /**
   * The supervisor's shutdown: `stop` stops every daemon, dependents before their dependencies,
   * and waits for their hooks (0); `keep` leaves them running for the next supervisor to adopt
   * and says how many run.
   */
  readonly shutdown: (mode: "stop" | "keep") => Effect.Effect<number>
}

/** What `listing` lists: with `usage`, /proc figures; with `ids`, only those daemons. */
export interface ListingOptions {
  readonly usage: boolean
  readonly ids?: ReadonlyArray<string>
}

/** The one place that selects daemons and starts and stops them in dependency order. */
export class Control extends Context.Tag("supervisor/Control")<Control, ControlShape>() {}

export const ControlLive = Layer.effect(
  Control,
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const projects = yield* ProjectRegistry
    const sampler = yield* ProcessSampler
    const loader = yield* ConfigLoader
    const supervisorConfig = yield* SupervisorConfig
    const logs = yield* LogStore
    /**
     * `supervisor scale`'s counts, by replicated daemon (docs/replicas.md): kept in the state file
     * until the daemon stops, so that a supervisor that restarts keeps the count of what it adopts.
     */
    const store = yield* StateStore
    const scaled = Effect.map(store.get, (s): ScaledCounts => new Map(Object.entries(s.scaled)))
    const setScaled = (id: string, count: number | undefined) =>
      Effect.asVoid(
        store.update((s) => {
          const { [id]: _, ...others } = s.scaled
          return { ...s, scaled: count === undefined ? others : { ...others, [id]: count } }
        }),
      )
    const underway = yield* makeRestartsUnderway
    /** Fills each entry's `slug` and `proxy_url` from the slugs in force now. */
    const slugged = (entries: ReadonlyArray<ApiDaemonEntry>) =>
      Effect.map(proxyView(loader, projects, supervisorConfig), (v) => withSlugs(entries, v.slugs, v.proxy))

    const start = (plan: StartPlan, reason: Reason) =>
      startWithDependencies(sup.begin, plan.requested, plan.dependencies, plan.force, {
        start: { reason, ...(plan.detail === undefined ? {} : { detail: plan.detail }) },
        isRunning: sup.isRunning,
        completedHere: completedHereById(sup),
        portConflict: sup.portConflict,
        sync: sup.sync,
        completion: awaitCompletion(sup),
      })

    /**
     * The entries of `records` and of the never-run daemons among `defs`, as the API lists them
     * (without `slug` and `proxy_url`: selection and waiting lists read none).
     */
    const entriesOf = (
      usage: boolean,
      records: ReadonlyArray<DaemonState>,
      defs: ReadonlyArray<DaemonDefinition>,
    ) =>
      Effect.gen(function* () {
        const disabledIds = yield* sup.disabledIds
        const disabled = new Set(disabledIds)
        const measured = usage ? yield* daemonUsage(sampler, records) : undefined
        const entries = records.map((r) =>
          sup.entry(r, disabled.has(r.def.id.qualified), measured?.get(r.def.id.qualified)),
        )
        const counts = yield* scaled
        return withScaled(mergeDefinitions(entries, disabledIds, withinScale(defs, counts)), counts)
      })
    /**
     * `listing` without slugs. With `ids`, each is looked up rather than filtered out of every
     * daemon: the entry the event stream sends after each event about a daemon
     * (docs/benchmarks.md, the event stream).
     */
    const unslugged = (options: ListingOptions) =>
      Effect.gen(function* () {
        if (options.ids === undefined)
          return yield* entriesOf(options.usage, yield* sup.list, yield* projects.definitions)
        const wanted = [...new Set(options.ids)]
        const records: Array<DaemonState> = []
        for (const id of wanted) {
          const r = yield* Effect.option(sup.get(id))
          if (Option.isSome(r)) records.push(r.value)
        }
        return yield* entriesOf(
          options.usage,
          records,
          definitionsOf(yield* SubscriptionRef.get(projects.snapshot), wanted),
        )
      })
    const listing = (options: ListingOptions) => Effect.flatMap(unslugged(options), slugged)

    const loadFrom = (options: LoadOptions): Effect.Effect<ResolvedConfig | undefined> =>
      Effect.gen(function* () {
        yield* projects.note(options.cwd)
        // Warnings and problems are the CLI's to print.
        const config = yield* Effect.either(loader.load(options))
        return Either.isLeft(config) || config.right.warnings.length > 0 ? undefined : config.right
      })

    const planDefs = (plan: StartPlan) => [...plan.requested, ...plan.dependencies]
    const view = proxyView(loader, projects, supervisorConfig)
    const running = Effect.map(sup.list, (all) => all.filter(isActive).map((r) => r.def.id.qualified))
    // the steps of the commands: only `handle` reaches them (no side door around the protocol)
    const control: ControlShape & Pick<HandleDeps, "start" | "startEvents" | "stop"> = {
      handle: (command, sink) => handle(command, sink),
      // a ready daemon's outcome carries its proxy address (printed by `start`)
      start: (plan, reason) =>
        Effect.flatMap(start(plan, reason), (outcomes) =>
          Effect.map(view, (v) => outcomes.map((o) => withProxyUrl(o, planDefs(plan), v))),
        ),
      // the proxy view read once per start, at its first outcome, not once per daemon (a start of
      // 50 looked up the global configuration 50 times)
      startEvents: (plan, reason) =>
        Stream.unwrap(
          Effect.map(Effect.cached(view), (once) =>
            startEvents(sup, plan, reason).pipe(
              Stream.mapEffect((event) =>
                "waiting" in event
                  ? Effect.succeed(event)
                  : Effect.map(once, (v) => eventWithProxyUrls(event, planDefs(plan), v)),
              ),
            ),
          ),
        ),
      stop: (ids, reason) =>
        Effect.gen(function* () {
          const depends = new Map<string, ReadonlyArray<string>>()
          // a never-run daemon of a known project (listed as available): nothing to stop
          const neverRan = new Set<string>()
          for (const id of ids) {
            const r = yield* Effect.either(sup.get(id))
            if (Either.isRight(r)) depends.set(id, r.right.def.config.depends)
            else if ((yield* projects.find(id).pipe(Effect.orElseSucceed(() => undefined))) !== undefined)
              neverRan.add(id)
            else return yield* Effect.fail(r.left)
          }
          const results = new Map<string, StopResult>()
          const order: Array<string> = []
          for (const level of stopLevels(depends)) {
            order.push(...level)
            yield* Effect.forEach(
              level,
              (id) =>
                Effect.gen(function* () {
                  const wasRunning = yield* sup.stop(id, reason)
                  const r = yield* sup.get(id)
                  // SIGKILL ended it (never a stop signal of its own): it outlived the stop timeout
                  results.set(id, {
                    id,
                    was_running: wasRunning,
                    killed: wasRunning && r.status.signal === "SIGKILL",
                  })
                }),
              { concurrency: "unbounded", discard: true },
            )
          }
          order.push(...ids.filter((id) => neverRan.has(id)))
          return order.map((id) => results.get(id) ?? { id, was_running: false, killed: false })
        }),
      listing,
      entry: (id) =>
        Effect.gen(function* () {
          const r = yield* Effect.option(sup.get(id))
          if (Option.isSome(r)) {
            const entry = sup.entry(
              r.value,
              yield* sup.isDisabled(id),
              (yield* daemonUsage(sampler, [r.value])).get(id),
            )
            return (yield* slugged([entry]))[0]!
          }
          // never ran, but a known project configures it: its listing entry
          const configured = yield* projects.find(id).pipe(Effect.orElseSucceed(() => undefined))
          if (configured === undefined) return yield* Effect.fail(daemonNotFound(id))
          return (yield* slugged(mergeDefinitions([], yield* sup.disabledIds, [configured.def])))[0]!
        }),
      listFrom: (options) =>
        Effect.gen(function* () {
          const config = yield* loadFrom(options)
          if (config === undefined) return undefined
          const all = yield* listing({ usage: true })
          return yield* slugged(mergeListing(all, yield* sup.disabledIds, config, yield* scaled))
        }),
      reportWatchProblem: (id, problem) => sup.setWatchProblem(id, problem),
      shutdown: (mode) => (mode === "keep" ? sup.detach : Effect.as(sup.stopAll, 0)),
      resolveFrom: (options, typed) =>
        Effect.gen(function* () {
          yield* projects.note(options.cwd)
          const loaded = yield* Effect.either(loader.load(options))
          if (Either.isLeft(loaded) || loaded.right.warnings.length > 0)
            return yield* new ConfigUnusable({
              message: "the configuration has warnings or problems",
              warnings_only: Either.isRight(loaded),
            })
          const known = yield* unslugged({ usage: false })
          const id = yield* resolveId(typed, loaded.right, known)
          // a replicated daemon is its instances: the CLI selects them (src/control/instances.ts)
          if (known.some((k) => k.instance?.daemon === id) || loaded.right.daemons[id]?.config.instances)
            return yield* new UsageError({ message: `${id} runs as instances: select them` })
          return { id, settings: loaded.right.settings }
        }),
    }
    const fs = yield* FileSystem.FileSystem
    const handle = makeHandle({
      sup,
      underway,
      loader,
      // `start feature-x.shop`: a git worktree of a slug's project, found as the proxy finds it
      worktreeDir: (main, label) =>
        gitWorktreeDir(main, label).pipe(Effect.provideService(FileSystem.FileSystem, fs)),
      projects,
      // selection and waiting lists read IDs, sources, ports and states: no slugs to fill
      known: unslugged({ usage: false }),
      oneDaemon: (id) =>
        Effect.gen(function* () {
          const snapshot = yield* SubscriptionRef.get(projects.snapshot)
          const known = (x: string) =>
            Effect.map(
              Effect.option(sup.get(x)),
              (ran) => Option.isSome(ran) || definitionsOf(snapshot, [x]).length > 0,
            )
          // `web` of a replicated daemon means its instances `web.1`, `web.2`, ...
          return (yield* known(id)) && !(yield* known(`${id}.1`))
        }),
      running,
      start: control.start,
      startEvents: control.startEvents,
      stop: control.stop,
      logs,
      env: supervisorConfig.env,
      ran: sup.list,
      scaled,
      setScaled,
    })
    yield* forgetStaleCounts({ sup, projects, scaled, setScaled }, false)
    const { start: _start, startEvents: _startEvents, stop: _stop, ...shape } = control
    return shape satisfies ControlShape
  }),
)
