// The selection of start, stop, restart, enable and disable against a supervisor at a URL
// (docs/remote.md): the daemons named by ID as the remote supervisor knows them, or (stop) every
// one that runs. The command carries no directory: this machine's files are not its
// configuration, and none is read.
import * as nodePath from "node:path"
import { Effect, type Option } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import type { Selection } from "../../domain/Command.js"
import { knownDaemons } from "../selection.js"
import { emptyConfig } from "../session.js"

/** The selection flags of start, stop and restart (enable and disable take IDs only). */
export interface SelectionFlags {
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: Option.Option<string>
  readonly local?: boolean
  readonly global?: boolean
}

/**
 * The IDs typed, resolved against what the remote supervisor knows; a flag that needs the local
 * files is refused (`extra`: the readiness and port flags given). `stop --all` stops every
 * daemon that runs there.
 */
export const remoteSelection = (verb: string, o: SelectionFlags, extra: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const allOk = verb === "stop"
    const flags = [
      o.all && !allOk ? "--all" : undefined,
      o.group._tag === "Some" ? "--group" : undefined,
      o.local === true ? "--local" : undefined,
      o.global === true ? "--global" : undefined,
      ...extra,
    ].filter((f) => f !== undefined)
    if (flags.length > 0)
      return yield* new UsageError({
        message: `with --url, ${verb} takes daemon IDs only (not ${flags.join(", ")}): the supervisor at the URL knows its daemons, this machine's files do not`,
      })
    if (o.all) return { ids: [], all: true } satisfies Selection
    if (o.ids.length === 0)
      return yield* new UsageError({ message: `name the daemons to ${verb} (with --url, by their IDs)` })
    const known = yield* knownDaemons
    const config = emptyConfig(nodePath.resolve(process.cwd()))
    const ids = yield* Effect.forEach(o.ids, (id) => resolveId(id, config, known))
    return { ids: [...new Set(ids)], all: false } satisfies Selection
  })
