/**
 * Templates in readiness values: `{{ daemons.<name>.port }}` renders the resolved
 * port of another daemon. `<name>` is a short name (same namespace) or a qualified ID.
 */
export interface TemplateRef {
  readonly text: string
  readonly daemon: string
}

const PLACEHOLDER = /\{\{(.*?)\}\}/g
const DAEMON_PORT = /^\s*daemons\.(.+)\.port\s*$/

/** The daemon references of a template string, or the first unknown variable. */
export const templateRefs = (
  value: string,
): { readonly refs: ReadonlyArray<TemplateRef>; readonly unknown?: string } => {
  const refs: Array<TemplateRef> = []
  for (const m of value.matchAll(PLACEHOLDER)) {
    const daemon = DAEMON_PORT.exec(m[1]!)
    if (!daemon) return { refs, unknown: m[1]!.trim() }
    refs.push({ text: m[0], daemon: daemon[1]! })
  }
  return { refs }
}

export const hasTemplate = (value: string): boolean => /\{\{.*?\}\}/.test(value)

/** Renders every placeholder with `lookup(daemon)`. */
export const renderTemplate = (value: string, lookup: (daemon: string) => string): string =>
  value.replace(PLACEHOLDER, (_, inner: string) => lookup(DAEMON_PORT.exec(inner)?.[1] ?? inner.trim()))

/** A problem message for a template string, if any. */
export const templateProblem = (value: string): string | undefined => {
  const { unknown } = templateRefs(value)
  return unknown === undefined
    ? undefined
    : `unknown template variable ${JSON.stringify(unknown)}; the only one is {{ daemons.<name>.port }}`
}
