import * as fs from "node:fs"
import { Effect, Either, Option, Schedule, Stream } from "effect"
import type { SupervisorConfigShape } from "../config/SupervisorConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { treePids } from "../domain/ProcessTree.js"
import type { TemplateScope } from "../domain/TemplateRender.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import { isSupervisorLine } from "../logs/supervisorLine.js"
import type { ProcessHandle, ProcessServiceShape } from "../process/ProcessService.js"
import type { DaemonState } from "./DaemonState.js"
import { type RunAs, shellArgv } from "./environment.js"
import {
  type ReadinessCheck,
  type ReadinessProbesShape,
  readinessChecks,
  renderChecks,
  waitUntilReady,
} from "./readiness/index.js"

/** What preparing a run's readiness checks needs from the supervisor. */
export interface ReadinessDeps {
  readonly logs: LogStoreShape
  readonly config: SupervisorConfigShape
  readonly probes: ReadinessProbesShape
  /** The daemon's process tree and whether it lives (a check passes only for the daemon's own). */
  readonly processes: Pick<ProcessServiceShape, "tree" | "groupMembers" | "isAlive">
  /** The daemons the supervisor knows: a check may wait for another daemon's listener. */
  readonly known: Effect.Effect<ReadonlyMap<string, DaemonState>>
  /** What the checks' templates render (see `DaemonContext.templateScope`). */
  readonly templateScope: (
    def: DaemonDefinition,
    env: Readonly<Record<string, string>>,
  ) => Effect.Effect<TemplateScope>
}

/**
 * Waits (at most 2 s) until the log follower has indexed the daemon's output up to byte `offset`
 * of its raw file (by default its size now): every complete line before it has its id.
 */
export const indexedUpTo = (logs: LogStoreShape, id: string, offset?: number) =>
  Effect.gen(function* () {
    const { rawPath } = yield* logs.paths(id)
    const caughtUp = Effect.gen(function* () {
      const end = offset ?? (yield* Effect.try(() => fs.statSync(rawPath).size))
      return (yield* logs.stats(id)).endOffset >= end
    })
    yield* caughtUp.pipe(
      Effect.repeat({ schedule: Schedule.spaced("25 millis"), until: (done) => done }),
      Effect.timeout("2 seconds"),
    )
  }).pipe(Effect.ignore)

/**
 * Waits (at most 2 s) until the log follower has indexed every complete line the daemon
 * wrote: a daemon that printed why it failed and exited at once has its last lines shown.
 */
export const indexedAll = (logs: LogStoreShape, id: string) => indexedUpTo(logs, id)

/**
 * The daemon's process tree: its process and descendants (a shell's, a pty or tool-manager
 * wrapper's children), and the members of its process group (children that daemonized).
 */
export const ownPids = (
  processes: Pick<ProcessServiceShape, "tree" | "groupMembers">,
  pid: number,
): Effect.Effect<ReadonlyArray<number>> =>
  Effect.all([processes.tree(pid), processes.groupMembers(pid)]).pipe(
    Effect.map(([tree, group]) => [
      ...new Set([...Option.match(tree, { onNone: () => [], onSome: treePids }), ...group]),
    ]),
  )

/**
 * The pids a check of daemon `id` (whose run's process is `pid`) looks at for `owner`: its own
 * run's, or those of the daemon a template named (none while that one has no process).
 */
export const pidsOfOwner =
  (
    processes: Pick<ProcessServiceShape, "tree" | "groupMembers">,
    known: Effect.Effect<ReadonlyMap<string, DaemonState>>,
    id: string,
    pid: number,
  ) =>
  (owner: string | undefined): Effect.Effect<ReadonlyArray<number>> =>
    owner === undefined || owner === id
      ? ownPids(processes, pid)
      : Effect.flatMap(known, (now) => {
          const theirs = now.get(owner)?.pid
          return theirs === null || theirs === undefined ? Effect.succeed([]) : ownPids(processes, theirs)
        })

/** Renders the checks' templates with the daemon's scope, `{{ env.VAR }}` read from the run's environment. */
export const prepareReadiness =
  ({ logs, config, probes, processes, known: knownNow, templateScope }: ReadinessDeps) =>
  (def: DaemonDefinition, run: RunAs) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const scope = yield* templateScope(def, run.env)
      const rendered = renderChecks(readinessChecks(def.config), scope)
      if (Either.isLeft(rendered)) return yield* rendered.left
      const checks: ReadonlyArray<ReadinessCheck> = rendered.right
      // Noted before the spawn, once the previous run's output is indexed: the lines the new
      // run prints (even at once) come after this id, and the old run's lines do not count.
      const afterId = checks.some((c) => c._tag === "output")
        ? yield* indexedAll(logs, id).pipe(
            Effect.zipRight(logs.stats(id)),
            Effect.map((s) => s.lastId),
            Effect.orElseSucceed(() => undefined),
          )
        : undefined
      const lines = logs.onLines(id, afterId === undefined ? {} : { afterId }).pipe(
        Stream.map((e) => e.message),
        // the daemon's own output: not the supervisor's lines in its log
        Stream.filter((line) => !isSupervisorLine(line)),
      )
      return (handle: ProcessHandle) =>
        waitUntilReady(
          id,
          checks,
          {
            probes,
            interval: config.settings.supervisor.ready_check_interval,
            httpTimeout: config.settings.supervisor.http_client_timeout,
            lines,
            command: {
              shell: shellArgv(config.settings.general.shell),
              cwd: def.config.dir,
              ...run,
            },
            treeOf: pidsOfOwner(processes, knownNow, id, handle.pid),
            alive: processes.isAlive(handle.pid, handle.startTime),
          },
          handle.exit,
        )
    })
