// The daemon actions of the web page and the dashboard (start, stop, restart, enable, disable of
// one daemon) as commands of the protocol (src/domain/Command.ts), sent to `POST /api/commands`.
// Self-contained (no outer names): the page's script embeds their source text, so the browser and
// the dashboard build the same command and read its answer the same way.

/** The command of `action` on the daemon `id` (qualified; or several), as JSON, with who asked (`reason`). */
export const actionCommand = (
  action: string,
  id: string | ReadonlyArray<string>,
  reason: string,
): {
  readonly _tag: string
  readonly selection: { readonly ids: Array<string> }
  readonly reason: string
} => {
  const tags: Record<string, string> = {
    start: "Start",
    stop: "Stop",
    restart: "Restart",
    enable: "Enable",
    disable: "Disable",
  }
  const tag = tags[action]
  if (tag === undefined) throw new Error(`unknown daemon action ${action}`)
  return { _tag: tag, selection: { ids: typeof id === "string" ? [id] : [...id] }, reason }
}

/**
 * Why a command's answer (its JSON success) is a failure for the daemon `id`: a start or restart
 * answers each daemon's outcome, and the daemon's own may be a failure. Empty when it is none.
 */
export const actionFailure = (id: string, answer: unknown): string => {
  if (!Array.isArray(answer)) return ""
  const own: { _tag?: unknown; message?: unknown } | undefined =
    answer.find((o) => o !== null && typeof o === "object" && o.id === id) ?? answer[answer.length - 1]
  if (own === undefined || own === null || typeof own !== "object") return ""
  if (own._tag === "Disabled") return `${id} is disabled; enable it first`
  if (own._tag === "Interrupted") return `${id} was stopped while starting`
  if (own._tag === "StartFailed") return typeof own.message === "string" ? own.message : "it failed to start"
  return ""
}
