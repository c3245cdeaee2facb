import { Effect, Option, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import type { ProcessServiceShape } from "../process/ProcessService.js"
import type { StateStoreShape } from "../state/StateStore.js"
import type { StorageHealthShape } from "../state/StorageHealth.js"
import { type DaemonState, isActive } from "./DaemonState.js"
import type { DaemonContext } from "./daemon/context.js"
import { apiEntry } from "./entry.js"
import type { DaemonNotFound } from "./errors.js"
import type { Registry } from "./registry.js"
import type { DaemonUsage } from "./resourceUsage.js"

/**
 * The read side of the supervisor: what the daemons are now and how they change, for the API,
 * listings, metrics and the proxy. Nothing here sends a daemon a command.
 */
export interface SupervisorViewShape {
  readonly get: (id: string) => Effect.Effect<DaemonState, DaemonNotFound>
  /** Whether the daemon runs now (starting, ready, stopping); false for one it does not know. */
  readonly isRunning: (id: string) => Effect.Effect<boolean>
  readonly list: Effect.Effect<ReadonlyArray<DaemonState>>
  readonly isDisabled: (id: string) => Effect.Effect<boolean>
  readonly disabledIds: Effect.Effect<ReadonlyArray<string>>
  /** Waits until the daemon is neither running nor waiting for a retry; its state then. */
  readonly wait: (id: string) => Effect.Effect<DaemonState, DaemonNotFound>
  /**
   * Why the daemon's ports cannot be had now (taken, and `port.bump` cannot shift them), as its
   * start would say it; undefined when they can. A start checks them before it spawns anything.
   */
  readonly portConflict: (def: DaemonDefinition) => Effect.Effect<string | undefined>
  /** The last `n` output lines of the daemon's latest run (empty when it has none). */
  readonly lastLines: (id: string, n: number) => Effect.Effect<ReadonlyArray<string>>
  /** The daemons now, then after each change. */
  readonly changes: Stream.Stream<ReadonlyMap<string, DaemonState>>
  readonly entry: (r: DaemonState, disabled: boolean, usage?: DaemonUsage) => ApiDaemonEntry
  /**
   * Records why the daemon's `watch` files cannot be watched (its watcher could not be set up),
   * or clears it (undefined): its entry (`status`, the API) shows it.
   */
  readonly setWatchProblem: (id: string, problem: string | undefined) => Effect.Effect<void>
  /** The daemon's process tree (root first, children nested); empty when it is not running. */
  readonly tree: (id: string) => Effect.Effect<ReadonlyArray<ProcessTreeNode>, DaemonNotFound>
}

export interface ViewDeps {
  readonly registry: Registry
  readonly state: StateStoreShape
  readonly processes: ProcessServiceShape
  readonly ctx: Pick<DaemonContext, "lastLines" | "resolvePorts">
  readonly health: StorageHealthShape
}

/** The view over the registry (the daemons' records and their `changes`) and the state file. */
export const makeSupervisorView = ({
  registry,
  state,
  processes,
  ctx,
  health,
}: ViewDeps): SupervisorViewShape => {
  /** Why a daemon's files cannot be watched, by ID (set by the watch service). */
  const watchProblems = new Map<string, string>()
  return {
    get: registry.find,
    isRunning: (id) => Effect.map(registry.current(id), (r) => r !== undefined && isActive(r)),
    list: Effect.map(registry.all, (m) => [...m.values()]),
    isDisabled: (id) => state.get.pipe(Effect.map((s) => s.disabled.includes(id))),
    disabledIds: state.get.pipe(Effect.map((s) => s.disabled)),
    lastLines: ctx.lastLines,
    portConflict: (def) =>
      Effect.match(ctx.resolvePorts(def), { onFailure: (e) => e.message, onSuccess: () => undefined }),
    wait: (id) =>
      Effect.gen(function* () {
        yield* registry.find(id)
        const settled = yield* registry.changes.pipe(
          Stream.map((m) => m.get(id)),
          Stream.filter((r) => r === undefined || (!isActive(r) && !r.retryPending)),
          Stream.runHead,
        )
        // forgotten meanwhile: not found
        return yield* Option.match(Option.flatMap(settled, Option.fromNullable), {
          onNone: () => registry.find(id),
          onSome: Effect.succeed,
        })
      }),
    changes: registry.changes,
    entry: (r, disabled, usage) =>
      apiEntry(
        r,
        disabled,
        usage,
        watchProblems.get(r.def.id.qualified),
        health.logProblemOf(r.def.id.safe_path),
      ),
    setWatchProblem: (id, problem) =>
      Effect.sync(() => {
        if (problem === undefined) watchProblems.delete(id)
        else watchProblems.set(id, problem)
      }),
    tree: (id) =>
      registry
        .find(id)
        .pipe(
          Effect.flatMap((r) =>
            isActive(r) && r.pid !== null
              ? processes.tree(r.pid).pipe(Effect.map(Option.match({ onNone: () => [], onSome: (n) => [n] })))
              : Effect.succeed([]),
          ),
        ),
  }
}
