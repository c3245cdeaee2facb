// `supervisor list` shows the instances of a replicated daemon under a row of the daemon itself
// (docs/replicas.md): `app/api  3 instances, 2 running`, then `app/api.1` ... by index.
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { isActiveStatus } from "../domain/DaemonStatus.js"

export type ListRow =
  | { readonly _tag: "Daemon"; readonly entry: ApiDaemonEntry; readonly instance: boolean }
  | { readonly _tag: "Group"; readonly daemon: string; readonly instances: ReadonlyArray<ApiDaemonEntry> }

/** The entries (sorted by ID) as rows: each replicated daemon's row, then its instances by index. */
export const listRows = (entries: ReadonlyArray<ApiDaemonEntry>): Array<ListRow> => {
  const groups = new Map<string, Array<ApiDaemonEntry>>()
  for (const e of entries) {
    if (e.instance === undefined) continue
    const members = groups.get(e.instance.daemon) ?? []
    members.push(e)
    groups.set(e.instance.daemon, members)
  }
  const rows: Array<ListRow> = []
  for (const e of entries) {
    if (e.instance === undefined) {
      rows.push({ _tag: "Daemon", entry: e, instance: false })
      continue
    }
    const members = groups.get(e.instance.daemon)
    if (members === undefined) continue // listed already, at its first instance
    groups.delete(e.instance.daemon)
    const byIndex = [...members].sort((a, b) => a.instance!.index - b.instance!.index)
    rows.push({ _tag: "Group", daemon: e.instance.daemon, instances: byIndex })
    for (const m of byIndex) rows.push({ _tag: "Daemon", entry: m, instance: true })
  }
  return rows
}

/** `3 instances, 2 running`: the group row's status. */
export const groupStatus = (instances: ReadonlyArray<ApiDaemonEntry>): string => {
  const running = instances.filter((e) => isActiveStatus(e.status.type)).length
  return `${instances.length} instance${instances.length === 1 ? "" : "s"}, ${running} running`
}
