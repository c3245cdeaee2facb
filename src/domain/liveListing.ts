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

/**
 * `shown` with `entry` (sent without usage figures) in its place: an entry whose pid is unchanged
 * keeps the CPU, memory and port figures shown (the usage samples bring new ones). null when the
 * daemon is not shown (it came since the list): fetch the whole list.
 */
export const patchListing = <E extends Shown>(shown: ReadonlyArray<E>, entry: E): Array<E> | null => {
  const i = shown.findIndex((e) => e.id.qualified === entry.id.qualified)
  if (i < 0) return null
  const old = shown[i] as E
  const out = shown.slice()
  out[i] =
    old.pid === entry.pid
      ? {
          ...entry,
          cpu_percent: old.cpu_percent,
          memory_bytes: old.memory_bytes,
          active_port: old.active_port,
        }
      : entry
  return out
}
