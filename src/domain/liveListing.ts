// How the web page and the dashboard keep their list of daemons current from the event stream
// (`GET /api/events?entries=true`): each event about a daemon comes with the daemon's entry,
// which is patched into the list shown; anything else (a (re)connection, a configuration event,
// a gap in the stream, a daemon that came or went) fetches the whole list. Self-contained (no
// outer names): the page's script embeds their source text, so both front-ends decide alike.

/** The fields of a listing entry these functions read. */
interface Shown {
  readonly id: { readonly qualified: string }
  readonly pid: number | null
  readonly cpu_percent: number
  readonly memory_bytes: number
  readonly active_port: number | null
}

/** The daemon an event is about (its `id`: its entry follows it), or null when it asks for the whole list. */
export const eventDaemon = (item: { readonly _tag: string; readonly id?: unknown }): string | null =>
  item._tag !== "EventsDropped" && typeof item.id === "string" ? item.id : null

/**
 * `shown` with `fresh` (entries of `ids`, without usage figures) in their place: an entry
 * whose pid is unchanged keeps the CPU, memory and port figures shown (the usage samples bring
 * new ones). null when an ID is not in both lists (a daemon came or went): fetch the whole list.
 */
export const patchListing = <E extends Shown>(
  shown: ReadonlyArray<E>,
  fresh: ReadonlyArray<E>,
  ids: ReadonlyArray<string>,
): Array<E> | null => {
  const byId = new Map<string, E>()
  for (const e of fresh) byId.set(e.id.qualified, e)
  const at = new Map<string, number>()
  shown.forEach((e, i) => {
    at.set(e.id.qualified, i)
  })
  for (const id of ids) if (!byId.has(id) || !at.has(id)) return null
  const out = shown.slice()
  for (const [id, e] of byId) {
    const i = at.get(id)
    if (i === undefined) return null
    const old = out[i] as E
    out[i] =
      old.pid === e.pid
        ? { ...e, cpu_percent: old.cpu_percent, memory_bytes: old.memory_bytes, active_port: old.active_port }
        : e
  }
  return out
}
