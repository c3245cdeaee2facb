/**
 * Which control buttons the page shows for a daemon (docs/web.md, "Actions"): only those that
 * do something for its status. Self-contained (no outer names) because the page's script embeds
 * its source text: the same rule runs in the browser and in the unit tests.
 */
export const visibleActions = (d: {
  readonly status: { readonly type: string }
  readonly enabled: boolean
  readonly next_retry: unknown
}): Array<string> => {
  const type = d.status.type
  const active = type === "waiting" || type === "running" || type === "unhealthy"
  const out: Array<string> = []
  // a disabled daemon cannot be started, a stopping one has a stop under way
  if (d.enabled && !active && type !== "stopping" && type !== "disabled") out.push("start")
  // an errored daemon waiting for its retry, or a stopped one for its `restart = "always"`
  // restart, can be stopped: that cancels it
  if (active || ((type === "errored" || type === "stopped") && d.next_retry !== null)) out.push("stop")
  if (d.enabled && active) out.push("restart")
  out.push(d.enabled ? "disable" : "enable")
  return out
}
