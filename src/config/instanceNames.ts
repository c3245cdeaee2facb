// The names of a replicated daemon's instances are its own (docs/replicas.md): `api` with
// `instances` owns `api.1` to `api.64`, so no other daemon of its namespace may be named so.
import { InvalidDaemonName } from "../domain/ConfigProblem.js"
import type { DaemonId } from "../domain/DaemonId.js"
import { instanceIndexOf, MAX_INSTANCES } from "../domain/Instances.js"

export interface NamedDaemon {
  readonly id: DaemonId
  /** Its `instances`, when set. */
  readonly instances: number | undefined
  /** Where a key of it is written (the table itself without a key). */
  readonly at: (key: string | undefined) => { readonly file: string; readonly line?: number }
}

/** One problem per daemon whose name is an instance name of a replicated daemon of its namespace. */
export const instanceNameProblems = (daemons: ReadonlyArray<NamedDaemon>): Array<InvalidDaemonName> =>
  daemons.flatMap((d) => {
    const owner = daemons.find(
      (o) =>
        o !== d &&
        o.instances !== undefined &&
        o.id.namespace === d.id.namespace &&
        (instanceIndexOf(d.id.name, o.id.name) ?? 0) <= MAX_INSTANCES &&
        instanceIndexOf(d.id.name, o.id.name) !== undefined,
    )
    if (owner === undefined) return []
    const ownerAt = owner.at("instances")
    return [
      new InvalidDaemonName({
        ...d.at(undefined),
        key: `daemons.${d.id.name}`,
        message: `daemon ${d.id.qualified} has the name of an instance of ${owner.id.qualified}, which sets instances (${ownerAt.file}${ownerAt.line === undefined ? "" : `:${ownerAt.line}`}): its instances are named ${owner.id.name}.1 to ${owner.id.name}.${MAX_INSTANCES}`,
        hint: `rename [daemons.${d.id.name}] (such as ${d.id.name.replace(/\.(\d+)$/, "-$1")}), or remove instances from ${owner.id.name}`,
      }),
    ]
  })
