// The one handler of the command protocol (src/domain/Command.ts): one `match` over the tags.
// Selection, dependency closure, waiting lists and stop ordering happen here and nowhere else,
// whoever sends the command (the CLI, the API, the web page, MCP, watch, cron, limits, ...).
import { Effect, Match, Metric, MetricLabel, type Schema, Stream } from "effect"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { baseOf, instanceOf } from "../config/replicas.js"
import type { StopResult } from "../domain/CliOutput.js"
import {
  type Clean,
  type Command,
  type Disable,
  type Enable,
  type Kill,
  type LogStreamCommand,
  Restart,
  type RestartDependents,
  type Run,
  type Start,
  type Stop,
  type Wait,
} from "../domain/Command.js"
import {
  ConfigUnusable,
  type DaemonNotFound,
  NothingSelected,
  UnknownDaemon,
  UsageError,
} from "../domain/CommandErrors.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { bumpProblem, withOverrides } from "../domain/overrides.js"
import type { Reason } from "../domain/Reason.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { StartEvent, StartProgress, Waiting } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { completedHere, endedWithSuccess } from "./completion.js"
import { restartDependents } from "./dependents.js"
import { makeExplain } from "./explain.js"
import { makeInput } from "./input.js"
import type { StartPlan } from "./plan.js"
import { type LogSink, makeReads, type ReadDeps } from "./reads.js"
import type { RestartsUnderway } from "./restarting.js"
import { forgetStaleCounts, makeScale } from "./scale.js"
import { loadFrom, selectFor } from "./selectFor.js"
import { resolveId } from "./selection.js"
import { waitingListOf } from "./waiting.js"

/** Hears a start's progress (`wait: "events"`): the waiting list first, then each event. */
export type CommandSink = (event: StartProgress) => Effect.Effect<void>

/** The sink of a command: a start's progress, or the lines of a streamed log answer. */
export type SinkOf<C extends Command> = C extends LogStreamCommand ? LogSink : CommandSink

/** The answer of a command, typed by its request class. */
export type CommandResult<C extends Command> = Effect.Effect<
  Schema.WithResult.Success<C>,
  Schema.WithResult.Failure<C>
>

export interface HandleDeps extends ReadDeps {
  readonly sup: SupervisorShape
  /** The restarts commands are carrying out (a cascade leaves their daemons to them). */
  readonly underway: RestartsUnderway
  readonly start: (plan: StartPlan, reason: Reason) => Effect.Effect<ReadonlyArray<StartOutcome>>
  readonly startEvents: (plan: StartPlan, reason: Reason) => Stream.Stream<StartEvent>
  readonly stop: (
    ids: ReadonlyArray<string>,
    reason: Reason,
  ) => Effect.Effect<ReadonlyArray<StopResult>, DaemonNotFound>
  /** Sets (a number) or forgets (undefined) the scaled count of a replicated daemon. */
  readonly setScaled: (id: string, count: number | undefined) => Effect.Effect<void>
}

/** Every command handled, by command and by who asked: `supervisor_commands_total` (docs/metrics.md). */
export const commandsTotal = Metric.counter("supervisor_commands_total", {
  description: "Commands handled by the supervisor, by command and by who asked",
})

/**
 * The labels of one command and source, made once: the counter finds its series by the labels
 * array it is given, so the same array skips building and hashing a metric key per command.
 */
const labels = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
const countCommand = (command: string, source: string) =>
  Effect.sync(() => {
    const key = `${command}\0${source}`
    let tags = labels.get(key)
    if (tags === undefined) {
      tags = [MetricLabel.make("command", command), MetricLabel.make("source", source)]
      labels.set(key, tags)
    }
    commandsTotal.unsafeUpdate(1, tags)
  })

export const makeHandle = (deps: HandleDeps) => {
  const { sup } = deps

  /** The definitions to start for `ids`: the directory's configuration, a known project's, or the last run's. */
  const planFor = (ids: ReadonlyArray<string>, config: Parameters<typeof configDefinitions>[0] | undefined) =>
    Effect.gen(function* () {
      const scaled = yield* deps.scaled
      const fromConfig =
        config === undefined ? new Map<string, DaemonDefinition>() : configDefinitions(config, scaled)
      const requested: Array<DaemonDefinition> = []
      const dependencies = new Map<string, DaemonDefinition>()
      for (const id of ids) {
        const here = fromConfig.get(id)
        if (here !== undefined) {
          requested.push(here)
          continue
        }
        const ran = yield* Effect.option(sup.get(id))
        // a configuration that cannot be read does not block a daemon that ran before
        const configured = yield* deps.projects
          .find(id)
          .pipe(
            Effect.catchAll((e) =>
              ran._tag === "Some"
                ? Effect.succeed(undefined)
                : Effect.fail(new ConfigUnusable({ message: e.message, warnings_only: false })),
            ),
          )
        if (configured !== undefined) {
          requested.push(configured.def)
          for (const d of configured.dependencies) dependencies.set(d.id.qualified, d)
          continue
        }
        if (ran._tag === "Some") {
          requested.push(ran.value.def)
          continue
        }
        // an instance above the configured count (scaled): made like its first sibling
        const sibling = yield* siblingInstance(id)
        if (sibling !== undefined) requested.push(sibling)
        else
          return yield* new UnknownDaemon({ message: `no definition for ${id}: it is not configured here` })
      }
      if (config !== undefined)
        for (const d of dependencyClosure(requested, fromConfig)) dependencies.set(d.id.qualified, d)
      return { requested, dependencies: [...dependencies.values()], configured: fromConfig }
    })

  /** Instance `k` of a replicated daemon made from its instance 1 (run or configured); else undefined. */
  const siblingInstance = (id: string) =>
    Effect.gen(function* () {
      const m = /^(.+)\.([1-9][0-9]*)$/.exec(id)
      if (m === null) return undefined
      const first = `${m[1]}.1`
      const ran = yield* Effect.option(sup.get(first))
      const def =
        ran._tag === "Some"
          ? ran.value.def
          : (yield* deps.projects.find(first).pipe(Effect.orElseSucceed(() => undefined)))?.def
      if (def === undefined || def.instance?.daemon !== m[1]) return undefined
      return instanceOf(baseOf(def), Number(m[2]))
    })

  /** Runs a start plan as the command's wait mode asks. */
  const runStart = (
    plan: StartPlan,
    configured: ReadonlyMap<string, DaemonDefinition>,
    reason: Reason,
    wait: Start["wait"],
    sink: CommandSink | undefined,
  ) =>
    Effect.gen(function* () {
      // a forced start restarts the requested daemons: marked as such until it ends
      const forced = plan.force ? plan.requested.map((d) => d.id.qualified) : []
      const marked = <A, E>(effect: Effect.Effect<A, E>) => deps.underway.during(forced, effect)
      if (wait === "none") {
        yield* Effect.forkDaemon(marked(deps.start(plan, reason)))
        return []
      }
      if (wait === "ready" || sink === undefined) return yield* marked(deps.start(plan, reason))
      const known = yield* deps.known
      const states = new Map((yield* sup.list).map((r) => [r.def.id.qualified, r] as const))
      const waiting: ReadonlyArray<Waiting> = waitingListOf(
        plan.requested,
        plan.dependencies,
        plan.force,
        new Map([
          ...configured,
          ...[...plan.dependencies, ...plan.requested].map((d) => [d.id.qualified, d] as const),
        ]),
        known,
        yield* sup.disabledIds,
        (id) => {
          const r = states.get(id)
          return r !== undefined && completedHere(r)
        },
      )
      yield* sink({ waiting })
      let outcomes: ReadonlyArray<StartOutcome> = []
      yield* marked(
        Stream.runForEach(deps.startEvents(plan, reason), (e) =>
          "outcomes" in e ? Effect.sync(() => (outcomes = e.outcomes)) : sink(e),
        ),
      )
      return outcomes
    })

  const start = (c: Start | Restart, force: boolean, sink: CommandSink | undefined) =>
    Effect.gen(function* () {
      const allMeans = c._tag === "Restart" ? "running" : "configured"
      const selected = yield* selectFor(deps, c.selection, allMeans)
      if (selected.ids.length === 0)
        return yield* new NothingSelected({
          message: c._tag === "Restart" ? "no daemon is running: nothing to restart" : "no daemons to start",
        })
      const planned = yield* planFor(selected.ids, selected.config)
      const overrides = c.overrides ?? {}
      const requested = planned.requested.map((d) => withOverrides(d, overrides))
      const problem = bumpProblem(requested, overrides)
      if (problem !== undefined) return yield* new UsageError({ message: problem })
      const detail = c._tag === "Restart" ? c.detail : undefined
      const plan = {
        requested,
        dependencies: planned.dependencies,
        force,
        ...(detail === undefined ? {} : { detail }),
      }
      return yield* runStart(plan, planned.configured, c.reason, c.wait, sink)
    })

  const restartIfRunning = (c: Restart) =>
    Effect.gen(function* () {
      const selected = yield* selectFor(deps, c.selection, "running")
      const defs = yield* deps.projects.definitions
      for (const id of selected.ids) {
        const def = defs.find((d) => d.id.qualified === id)
        yield* sup.restartIfRunning(id, c.reason, def, c.detail).pipe(Effect.ignore)
      }
      return []
    })

  const stop = (c: Stop) =>
    Effect.gen(function* () {
      const selected = yield* selectFor(deps, c.selection, "running")
      const ran = new Set((yield* sup.list).map((r) => r.def.id.qualified))
      // configured but never run: the supervisor does not know them, so none runs
      const neverRan = selected.ids.filter((id) => !ran.has(id))
      const present = selected.ids.filter((id) => ran.has(id))
      const stopped = present.length === 0 ? [] : yield* deps.stop(present, c.reason)
      yield* forgetScaled
      return [...neverRan.map((id) => ({ id, was_running: false, killed: false })), ...stopped]
    })

  const forgetScaled = forgetStaleCounts(deps)

  const startIds = (ids: ReadonlyArray<string>, config: ResolvedConfig | undefined, reason: Reason) =>
    Effect.gen(function* () {
      const planned = yield* planFor(ids, config)
      const plan = { requested: planned.requested, dependencies: planned.dependencies, force: false }
      return yield* runStart(plan, planned.configured, reason, "ready", undefined)
    })
  const scale = makeScale(deps, startIds)
  const typing = makeInput(deps)
  const explain = makeExplain(deps)

  const toggle = (c: Enable | Disable) =>
    Effect.gen(function* () {
      const enabled = c._tag === "Enable"
      const selected = yield* selectFor(
        deps,
        { ...c.selection, all: false, group: undefined },
        "configured",
        `No daemon ID specified: name the daemons to ${enabled ? "enable" : "disable"}`,
      )
      // each must have a definition: configured here, by a known project, or run before
      yield* planFor(selected.ids, selected.config)
      for (const id of selected.ids) yield* enabled ? sup.enable(id) : sup.disable(id)
      return selected.ids.map((id) => ({ id, enabled }))
    })

  const clean = (c: Clean) =>
    Effect.gen(function* () {
      const ids =
        c.selection.ids.length > 0 || c.selection.all || c.selection.group !== undefined
          ? (yield* selectFor(deps, c.selection, "configured")).ids
          : undefined
      return { removed: [...(yield* sup.clean(ids, c.namespaces))] }
    })

  const wait = (c: Wait) =>
    Effect.gen(function* () {
      const from = c.from
      const config = from?._tag === "Directory" ? yield* loadFrom(deps, from) : undefined
      const id =
        config === undefined
          ? (yield* selectFor(deps, { ids: [c.id], all: false, ...(from ? { from } : {}) }, "configured"))
              .ids[0]!
          : yield* resolveId(c.id, config, yield* deps.known)
      const r = yield* Effect.either(sup.wait(id))
      if (r._tag === "Right")
        return {
          id,
          status: r.right.status.type,
          exit_code: r.right.status.exit_code ?? null,
          signal: r.right.status.signal ?? null,
          success: endedWithSuccess(r.right),
        }
      // configured here but never started: there is nothing to wait for
      if (config !== undefined && configDefinitions(config).has(id))
        return { id, status: "available" as const, exit_code: null, signal: null, success: false }
      return yield* Effect.fail(r.left)
    })

  const run = (c: Run, sink: CommandSink | undefined) =>
    runStart(
      { requested: c.definitions, dependencies: c.dependencies, force: c.force },
      new Map(),
      c.reason,
      c.wait,
      sink,
    )

  const reads = makeReads(deps)

  const dependents = (c: RestartDependents) =>
    restartDependents(
      {
        sup,
        underway: deps.underway,
        restart: (ids, reason, detail) =>
          start(
            new Restart({ selection: { ids, all: false }, reason, detail, wait: "none" }),
            true,
            undefined,
          ),
      },
      c,
    )

  const kill = (c: Kill) => Effect.map(sup.kill(c.id, c.reason, c.message, c.pid), (killed) => ({ killed }))

  const dispatch = (command: Command, given: CommandSink | LogSink | undefined) => {
    // the caller's sink is the one its command's type asks for (SinkOf)
    const sink = given as CommandSink | undefined
    const logSink = given as LogSink | undefined
    return Match.valueTags(command, {
      Start: (c) => start(c, c.force, sink),
      Restart: (c) => (c.if_running ? restartIfRunning(c) : start(c, true, sink)),
      RestartDependents: dependents,
      Stop: stop,
      Enable: toggle,
      Disable: toggle,
      Clean: clean,
      Wait: wait,
      Run: (c) => run(c, sink),
      Kill: kill,
      Scale: scale,
      Input: typing.input,
      Resize: typing.resize,
      Explain: explain,
      Logs: (c) => reads.logs(c, logSink),
      Tail: (c) => reads.tail(c, logSink),
      Settings: reads.settings,
      Namespaces: reads.namespaces,
    })
  }

  /**
   * Handles one command; `sink` hears a start's progress when it asks for `wait: "events"`, and
   * the lines of a tail or of a streamed logs query.
   */
  return <C extends Command>(command: C, sink?: SinkOf<C>): CommandResult<C> =>
    countCommand(command._tag, command.reason).pipe(
      Effect.zipRight(dispatch(command, sink) as Effect.Effect<unknown, unknown>),
      // each case answers its own request's success and failure (Match cannot narrow the generic C)
    ) as CommandResult<C>
}
