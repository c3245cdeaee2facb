// start, restart, enable and disable against a supervisor at a URL (docs/remote.md): the daemons
// named by ID, through the API's by-ID routes, as the remote supervisor knows them (no definition
// is sent from here, and none is read: this machine's files are not its configuration).
import * as nodePath from "node:path"
import { Console, Data, Effect, Option } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import type { ApiDaemonEntry, ControlResult } from "../../domain/ApiDaemonEntry.js"
import { ToggleResults } from "../../domain/CliOutput.js"
import { isActive } from "../../domain/DaemonStatus.js"
import type { StartOutcome } from "../../domain/StartOutcome.js"
import { SupervisorClient } from "../client.js"
import { cyan, green, printJson } from "../output.js"
import { knownDaemons } from "../selection.js"
import { emptyConfig, handleErrors, withClient } from "../session.js"
import { reportStart } from "../startReport.js"

/** An enable or disable the remote supervisor refused (exit 1). */
class ToggleFailed extends Data.TaggedError("ToggleFailed")<{ readonly message: string }> {}

/** The options of start and restart that only the local files can give a meaning to. */
export interface SelectionFlags {
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: Option.Option<string>
  readonly local?: boolean
  readonly global?: boolean
}

/** The IDs typed, resolved against what the remote supervisor knows; a selection flag is refused. */
const resolveRemote = (verb: string, o: SelectionFlags, extra: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const flags = [
      o.all ? "--all" : undefined,
      Option.isSome(o.group) ? "--group" : undefined,
      o.local === true ? "--local" : undefined,
      o.global === true ? "--global" : undefined,
      ...extra,
    ].filter((f) => f !== undefined)
    if (flags.length > 0)
      return yield* new UsageError({
        message: `with --url, ${verb} takes daemon IDs only (not ${flags.join(", ")}): the supervisor at the URL knows its daemons, this machine's files do not`,
      })
    if (o.ids.length === 0)
      return yield* new UsageError({ message: `name the daemons to ${verb} (with --url, by their IDs)` })
    const known = yield* knownDaemons
    const config = emptyConfig(nodePath.resolve(process.cwd()))
    const ids = yield* Effect.forEach(o.ids, (id) => resolveId(id, config, known))
    return { ids: [...new Set(ids)], known }
  })

/** What a by-ID start answered, as the start outcome the local CLI reports. */
const outcomeOf = (
  id: string,
  before: ApiDaemonEntry | undefined,
  force: boolean,
  result: ControlResult,
  after: ApiDaemonEntry | undefined,
): StartOutcome => {
  if (!result.ok) {
    const message = result.error ?? "the start failed"
    if (/is disabled/.test(message)) return { _tag: "Disabled", id }
    if (/stopped while starting/.test(message)) return { _tag: "Interrupted", id }
    const status = after?.status
    return {
      _tag: "StartFailed",
      id,
      message,
      exit_code: status?.exit_code ?? null,
      signal: status?.signal ?? null,
      output: [],
      cli_status: 1,
    }
  }
  if (!force && before !== undefined && isActive(before))
    return { _tag: "AlreadyRunning", id, pid: before.pid }
  if (after?.pid == null) return { _tag: "Completed", id }
  return { _tag: "Ready", id, pid: after.pid, ports: after.resolved_port }
}

/** `start IDS` (`restart IDS` with `force`) through `POST /api/daemons/{id}/start|restart`, one by one. */
export const remoteStart = (
  verb: "start" | "restart",
  o: SelectionFlags & { readonly json: boolean; readonly quiet: boolean },
  extra: ReadonlyArray<string>,
) =>
  handleErrors(
    withClient(
      emptyConfig(nodePath.resolve(process.cwd())),
      Effect.gen(function* () {
        const c = yield* SupervisorClient
        const { ids, known } = yield* resolveRemote(verb, o, extra)
        const outcomes: Array<StartOutcome> = []
        for (const id of ids) {
          const route = verb === "restart" ? c.api.daemons.restart : c.api.daemons.start
          const result = yield* route({ path: { id } }).pipe(Effect.orDie)
          const after = yield* c.api.daemons.get({ path: { id } }).pipe(Effect.option)
          const before = known.find((k) => k.id.qualified === id)
          outcomes.push(outcomeOf(id, before, verb === "restart", result, Option.getOrUndefined(after)))
        }
        yield* reportStart({ outcomes, printed: false }, o)
      }),
    ),
  )

/** `enable IDS` / `disable IDS` through `POST /api/daemons/{id}/enable|disable`. */
export const remoteToggle = (
  name: "enable" | "disable",
  o: { readonly ids: ReadonlyArray<string>; readonly json: boolean },
) =>
  handleErrors(
    withClient(
      emptyConfig(nodePath.resolve(process.cwd())),
      Effect.gen(function* () {
        const c = yield* SupervisorClient
        const { ids } = yield* resolveRemote(name, { ids: o.ids, all: false, group: Option.none() }, [])
        for (const id of ids) {
          const result = yield* c.api.daemons[name]({ path: { id } }).pipe(Effect.orDie)
          if (!result.ok)
            return yield* new ToggleFailed({ message: result.error ?? `${id} could not be ${name}d` })
        }
        if (o.json)
          return yield* printJson(
            ToggleResults,
            ids.map((id) => ({ id, enabled: name === "enable" })),
          )
        for (const id of ids) yield* Console.log(`${green("✓")} ${cyan(id)} ${name}d`)
      }),
    ),
  )
