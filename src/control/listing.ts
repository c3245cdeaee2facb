import { configDefinitions } from "../config/definitions.js"
import type { ScaledCounts } from "../config/replicas.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { nextRunOf } from "../domain/cronSchedule.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { InstanceOf } from "../domain/Instances.js"
import { compareIds } from "../domain/idOrder.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { worktreeEntryOf } from "../domain/Worktree.js"

const byId = (a: ApiDaemonEntry, b: ApiDaemonEntry) => compareIds(a.id.qualified, b.id.qualified)

/**
 * What `supervisor list` shows: every daemon known to the supervisor (those of the known projects
 * included), plus those configured here that it never ran (`available`, or `disabled`), sorted by
 * ID (src/domain/idOrder.ts). A never-run entry of a known project is replaced by the definition
 * read here (the newer one). Computed by the CLI, or by the supervisor itself for the fast
 * `list --json` (src/quick/list.ts).
 */
export const mergeListing = (
  known: ReadonlyArray<ApiDaemonEntry>,
  disabledIds: ReadonlyArray<string>,
  config: ResolvedConfig,
  scaled?: ScaledCounts,
): Array<ApiDaemonEntry> => {
  // the counts `scale` set, from the supervisor's entries when this side does not know them (the CLI)
  const inForce = new Map(scaled ?? [])
  for (const k of known)
    if (k.instance?.scaled !== undefined && !inForce.has(k.instance.daemon))
      inForce.set(k.instance.daemon, k.instance.scaled)
  const here = configDefinitions(config, inForce)
  const kept = known.filter(
    (k) => !(k.status.type === "available" && (here.has(k.id.qualified) || aboveScale(k, inForce))),
  )
  return mergeDefinitions(kept, disabledIds, [...here.values()])
}

/** Each instance's entry with the count `scale` set for its daemon, while it is in force. */
export const withScaled = (
  entries: ReadonlyArray<ApiDaemonEntry>,
  scaled: ScaledCounts,
): Array<ApiDaemonEntry> =>
  entries.map((e) => {
    const count = e.instance === undefined ? undefined : scaled.get(e.instance.daemon)
    return e.instance === undefined || count === undefined
      ? e
      : { ...e, instance: { ...e.instance, scaled: count } }
  })

/** A never-run instance above its daemon's scaled count: not listed while the count is in force. */
const aboveScale = (d: { readonly instance?: InstanceOf | undefined }, scaled: ScaledCounts | undefined) =>
  d.instance !== undefined && d.instance.index > (scaled?.get(d.instance.daemon) ?? Number.POSITIVE_INFINITY)

/** The definitions without the instances above their daemon's scaled count. */
export const withinScale = (
  defs: ReadonlyArray<DaemonDefinition>,
  scaled: ScaledCounts,
): ReadonlyArray<DaemonDefinition> => (scaled.size === 0 ? defs : defs.filter((d) => !aboveScale(d, scaled)))

/** `known` plus entries for the `definitions` it lacks (never run: `available` or `disabled`), sorted by ID. */
export const mergeDefinitions = (
  known: ReadonlyArray<ApiDaemonEntry>,
  disabledIds: ReadonlyArray<string>,
  definitions: ReadonlyArray<DaemonDefinition>,
): Array<ApiDaemonEntry> => {
  const disabled = new Set(disabledIds)
  const now = Date.now()
  const seen = new Set(known.map((k) => k.id.qualified))
  const configured = definitions
    .filter((d) => !seen.has(d.id.qualified))
    .map(
      (d): ApiDaemonEntry => ({
        id: d.id,
        title: d.id.name,
        pid: null,
        status: { type: disabled.has(d.id.qualified) ? "disabled" : "available" },
        dir: d.config.dir,
        cpu_percent: 0,
        memory_bytes: 0,
        uptime_secs: 0,
        proxy_url: null,
        slug: null,
        active_port: null,
        resolved_port: d.config.port?.expect ?? [],
        enabled: !disabled.has(d.id.qualified),
        adhoc: false,
        run: d.config.run,
        retry_count: 0,
        next_retry: null,
        source: d.source,
        next_run: nextRunOf(d, now),
        watch_problem: null,
        pty: d.config.pty,
        stdin: d.config.stdin,
        ...(d.instance === undefined ? {} : { instance: d.instance }),
        ...(d.worktree === undefined ? {} : { worktree: worktreeEntryOf(d.worktree) }),
      }),
    )
  return [...known, ...configured].sort(byId)
}
