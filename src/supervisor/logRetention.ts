// time_retention and line_retention: a pass over every daemon the supervisor knows, at start and
// then hourly, prunes what falls outside its limits, after the archive hook (if any) took it.
import { Clock, Duration, Effect, Stream } from "effect"
import type { SupervisorConfigShape } from "../config/SupervisorConfig.js"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import { jsonEncoder } from "../domain/jsonEncoding.js"
import { ArchivedLogEntry, type LogEntry, logTimeRfc3339 } from "../domain/LogEntry.js"
import type { Settings } from "../domain/Settings.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import type { ProcessServiceShape } from "../process/ProcessService.js"
import { shellArgv } from "./environment.js"
import { type ArchiveRunner, liveArchiveRunner } from "./logArchive.js"
import type { Registry } from "./registry.js"

/** How often the pass runs. */
export const PRUNE_INTERVAL = Duration.hours(1)

/** A daemon's retention: its `[daemons.<name>.logs]` keys, else `[settings.logs]`. */
export interface Retention {
  readonly lines?: number
  readonly age?: Duration.Duration
}

export const retentionOf = (config: DaemonConfig, settings: Settings): Retention | undefined => {
  const lines = config.logs?.line_retention ?? settings.logs.line_retention
  const age = config.logs?.time_retention ?? settings.logs.time_retention
  if (lines === undefined && age === undefined) return undefined
  return { ...(lines !== undefined && { lines }), ...(age !== undefined && { age }) }
}

/** The archive hook as a pass uses it. */
export interface Archive {
  readonly batchSize: number
  readonly run: ArchiveRunner
}

/**
 * A daemon's archive command: its `[daemons.<name>.logs] archive_hook`, else
 * `[settings.logs.archive_hook] command`; the batch size is the settings' either way.
 */
export const archiveCommandOf = (
  config: DaemonConfig,
  settings: Settings,
): { readonly command: string; readonly batchSize: number } | undefined => {
  const command = config.logs?.archive_hook ?? settings.logs.archive_hook?.command
  return command === undefined
    ? undefined
    : { command, batchSize: settings.logs.archive_hook?.batch_size ?? 1000 }
}

const archiveLine = jsonEncoder(ArchivedLogEntry)

const archived = (e: LogEntry): ArchivedLogEntry => ({ ...e, time: logTimeRfc3339(e.timestamp) ?? "" })

/** What one daemon's pruning did. */
export interface Pruned {
  readonly released: number
  /** Lines the archive hook did not take (kept for the next pass). */
  readonly kept: number
}

/**
 * Prunes one daemon's log: the entries outside `retention` are given to the archive hook in
 * batches, and released up to the last batch it took (all of them without a hook). A failing
 * hook keeps its batch and every later one, until a next pass.
 */
export const pruneLog = (
  logs: LogStoreShape,
  id: string,
  retention: Retention,
  archive: Archive | undefined,
) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const cut = yield* logs.pruneCut(id, {
      ...(retention.lines !== undefined && { lines: retention.lines }),
      ...(retention.age !== undefined && { olderThan: now - Duration.toMillis(retention.age) }),
    })
    if (cut.upTo < cut.firstId) return { released: 0, kept: 0 } satisfies Pruned
    let upTo = cut.upTo
    if (archive !== undefined) {
      let taken = cut.firstId - 1
      yield* logs.range(id, { after: cut.firstId - 1, upTo: cut.upTo }).pipe(
        Stream.flattenIterables,
        Stream.grouped(archive.batchSize),
        Stream.runForEachWhile((batch) => {
          const entries = [...batch]
          const last = entries.at(-1)?.id ?? taken
          return archive
            .run({
              daemon: id,
              reason: last <= cut.ageUpTo ? "age" : "count",
              input: entries.map((e) => `${archiveLine(archived(e))}\n`).join(""),
            })
            .pipe(
              Effect.map((ok) => {
                if (ok) taken = last
                return ok
              }),
            )
        }),
      )
      upTo = taken
    }
    const released = upTo < cut.firstId ? 0 : yield* logs.release(id, { gen: cut.gen, upTo })
    return { released, kept: cut.upTo - upTo } satisfies Pruned
  })

/**
 * One pass: every daemon with a retention, one after the other, each with its archive hook
 * (`archiveOf`); a failure is logged, not fatal.
 */
export const prunePass = (
  logs: LogStoreShape,
  daemons: ReadonlyArray<{ readonly id: string; readonly config: DaemonConfig }>,
  settings: Settings,
  archiveOf: (config: DaemonConfig) => Archive | undefined,
) =>
  Effect.forEach(
    daemons,
    ({ id, config }) => {
      const retention = retentionOf(config, settings)
      if (retention === undefined) return Effect.void
      return pruneLog(logs, id, retention, archiveOf(config)).pipe(
        Effect.flatMap((r) =>
          r.kept > 0
            ? Effect.logWarning(
                `log retention of ${id}: ${config.logs?.archive_hook === undefined ? "settings.logs.archive_hook" : "its logs.archive_hook"} failed; ${r.kept} line(s) to prune are kept and will be tried again at the next pruning (hourly)`,
              )
            : r.released > 0
              ? Effect.logInfo(`log retention of ${id}: pruned ${r.released} line(s)`)
              : Effect.void,
        ),
        Effect.catchAll((e) => Effect.logWarning(`log retention of ${id} failed: ${e.message}`)),
      )
    },
    { discard: true },
  )

/** The pass at start, then every PRUNE_INTERVAL, forever (fork it in the supervisor's scope). */
export const pruneForever = (pass: Effect.Effect<void>) =>
  Effect.forever(pass.pipe(Effect.zipRight(Effect.sleep(PRUNE_INTERVAL))))

/** time_retention and line_retention of every known daemon: a pass now, then hourly. */
export const retainLogs = (
  logs: LogStoreShape,
  registry: Registry,
  config: SupervisorConfigShape,
  processes: ProcessServiceShape,
) => {
  const { settings } = config
  // one runner per command: a daemon's own archive_hook, or the settings' one
  const runners = new Map<string, Archive>()
  const archiveOf = (daemon: DaemonConfig) => {
    const hook = archiveCommandOf(daemon, settings)
    if (hook === undefined) return undefined
    let archive = runners.get(hook.command)
    if (archive === undefined) {
      archive = {
        batchSize: hook.batchSize,
        run: liveArchiveRunner(
          {
            command: hook.command,
            shell: shellArgv(settings.general.shell),
            env: config.env,
            timeout: settings.supervisor.hook_timeout,
            log: (line) => process.stderr.write(`${line}\n`),
          },
          processes,
        ),
      }
      runners.set(hook.command, archive)
    }
    return archive
  }
  const pass = registry.all.pipe(
    Effect.map((all) => [...all.values()].map((r) => ({ id: r.def.id.qualified, config: r.def.config }))),
    Effect.flatMap((daemons) => prunePass(logs, daemons, settings, archiveOf)),
  )
  return pruneForever(pass)
}
