// A daemon's dependency as written (`"db"` or `{ id = "migrate", condition = "completed" }`) and
// the condition its dependent waits for before it starts. No Effect at run time beyond Schema.
import { Schema } from "effect"
import { DaemonRef } from "./DaemonId.js"

export const DEPENDENCY_CONDITIONS = ["ready", "completed", "completed_once", "started"] as const
/**
 * `ready`: its readiness check passed; `completed`: it exited 0; `completed_once`: it exited 0,
 * and once it did under this supervisor it is not run again; `started`: its process was spawned.
 */
export const DependencyCondition = Schema.Literal(...DEPENDENCY_CONDITIONS).annotations({
  identifier: "DependencyCondition",
  description:
    "What the dependent waits for: ready (its readiness check passed), completed (it exited 0), completed_once (it exited 0 once under this supervisor: not run again after that) or started (its process was spawned)",
})
export type DependencyCondition = typeof DependencyCondition.Type

/** The table form of a dependency: `{ id = "migrate", condition = "completed" }`. */
export const DependencyTable = Schema.Struct({
  id: DaemonRef,
  condition: Schema.optional(DependencyCondition.annotations({ default: "ready" })),
}).annotations({
  identifier: "DependencyTable",
  description: "A dependency with the condition its dependent waits for",
})

/** One entry of `depends`: a daemon ID (condition `ready`), or a table with a condition. */
export const DependencyEntry = Schema.Union(DaemonRef, DependencyTable).annotations({
  description:
    'A daemon ID (short or <namespace>/<name>), or { id = "migrate", condition = "ready" | "completed" | "completed_once" | "started" }',
})
export type DependencyEntry = typeof DependencyEntry.Type

export const entryId = (e: DependencyEntry): string => (typeof e === "string" ? e : e.id)
export const entryCondition = (e: DependencyEntry): DependencyCondition =>
  typeof e === "string" ? "ready" : (e.condition ?? "ready")

/** The condition a daemon's configuration sets for one of its dependencies (`ready` unless said). */
export const conditionOf = (
  config: { readonly depends_conditions: Readonly<Record<string, DependencyCondition>> },
  dependency: string,
): DependencyCondition => config.depends_conditions[dependency] ?? "ready"

/** Whether a condition waits for the dependency's exit 0 (`completed`, `completed_once`). */
export const awaitsExit = (c: DependencyCondition): boolean => c === "completed" || c === "completed_once"

/** "app/migrate to complete", as start's progress says what a daemon waits for. */
export const conditionText = (id: string, condition: DependencyCondition): string =>
  `${id} ${awaitsExit(condition) ? "to complete" : condition === "started" ? "to start" : "to be ready"}`

/** How much a condition asks: a dependency awaited for a stronger one satisfies the weaker ones. */
export const conditionRank = (c: DependencyCondition): number => (c === "started" ? 0 : c === "ready" ? 1 : 2)

/** What a daemon held for its dependencies waits for: `app/db to be ready, app/migrate to complete`. */
export const dependenciesText = (
  pending: ReadonlyArray<{ readonly id: string; readonly condition: DependencyCondition }>,
): string => pending.map((p) => conditionText(p.id, p.condition)).join(", ")
