import { Console, Effect } from "effect"
import { ConfigLoader } from "../config/ConfigLoader.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { Control } from "../control/Control.js"
import type { StartPlan } from "../control/plan.js"
import { Run } from "../domain/Command.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { StateStore } from "../state/StateStore.js"

// `supervisor supervisor run --boot`: once, at start-up, every daemon marked `boot_start = true`
// in the global configuration and the known projects starts, dependencies first (docs/boot.md).

/**
 * The boot plan over the definitions of every source (the first source that defines an ID wins):
 * the `boot_start` daemons, and what they depend on.
 */
export const bootPlan = (sources: ReadonlyArray<ReadonlyMap<string, DaemonDefinition>>): StartPlan => {
  const all = new Map<string, DaemonDefinition>()
  for (const defs of sources) for (const [id, def] of defs) if (!all.has(id)) all.set(id, def)
  const requested = [...all.values()].filter((d) => d.config.boot_start)
  return { requested, dependencies: dependencyClosure(requested, all), force: false }
}

const outcomeText = (o: StartOutcome) => {
  switch (o._tag) {
    case "Ready":
      return `started (pid ${o.pid})`
    case "AlreadyRunning":
      return "already running"
    case "Completed":
      return "completed"
    case "StartFailed":
      return `failed to start: ${o.message}`
    case "Disabled":
      return "disabled: not started"
    case "Interrupted":
      return "interrupted while starting"
  }
}

const say = (line: string) => Console.error(`boot: ${line}`)

/**
 * Starts the boot plan of the global configuration (`global`) and of the known projects
 * (`[namespaces]` of the user config and registered namespaces, each its own namespace's daemons,
 * then the noted directories), as a `Run` command of the resolved definitions with reason `boot`. Problems are lines of the supervisor's log; it never fails.
 */
export const startAtBoot = (global: ResolvedConfig) =>
  Effect.gen(function* () {
    const control = yield* Control
    const loader = yield* ConfigLoader
    const { env } = yield* SupervisorConfig
    const state = yield* (yield* StateStore).get
    const sources: Array<ReadonlyMap<string, DaemonDefinition>> = [configDefinitions(global)]
    const load = (dir: string, keep: (d: DaemonDefinition) => boolean) =>
      loader.load({ cwd: dir, env }).pipe(
        Effect.map((config) => new Map([...configDefinitions(config)].filter(([, d]) => keep(d)))),
        Effect.tap((defs) => sources.push(defs)),
        Effect.catchAll((e) =>
          say(
            `cannot read the configuration of ${dir}: ${
              "problems" in e && Array.isArray(e.problems)
                ? e.problems.map(formatProblem).join("; ")
                : String(e)
            }`,
          ),
        ),
      )
    // the user config's `[namespaces]` first, then those registered over the API
    for (const [namespace, dir] of [
      ...Object.entries(global.namespaces ?? {}),
      ...Object.entries(state.namespaces),
    ])
      yield* load(dir, (d) => d.id.namespace === namespace)
    for (const dir of state.projects) yield* load(dir, () => true)
    const plan = bootPlan(sources)
    if (plan.requested.length === 0) return yield* say("no daemon has boot_start = true")
    yield* say(`starting ${plan.requested.map((d) => d.id.qualified).join(", ")}`)
    const outcomes = yield* control.handle(
      new Run({
        definitions: plan.requested,
        dependencies: plan.dependencies,
        force: false,
        reason: "boot",
        wait: "ready",
      }),
    )
    for (const o of outcomes) yield* say(`${o.id}: ${outcomeText(o)}`)
  }).pipe(Effect.catchAllDefect((d) => say(`failed: ${String(d)}`)))
