/**
 * Templates: `{{ daemons.<name>.port }}` renders the resolved port of another daemon.
 * `<name>` is a short name (same namespace) or a qualified ID.
 */
export interface TemplateRef {
  readonly text: string
  readonly daemon: string
}

/**
 * Where a template is written. In `ready_*` values every `{{ ... }}` is a template ("strict"). In
 * a shell command or environment value (`run`, `env`) only a placeholder starting with
 * `daemons.` (or the near miss `daemon.`) is one ("shell"): any other `{{ ... }}`, such as
 * `docker ps --format '{{.Names}}'` or an awk block, is the command's own text and kept as written.
 */
export type TemplateSyntax = "strict" | "shell"

const PLACEHOLDER = /\{\{(.*?)\}\}/g
const DAEMON_PORT = /^\s*daemons\.(.+)\.port\s*$/
const DAEMONS_PREFIX = /^\s*daemons?\./

const isTemplate = (inner: string, syntax: TemplateSyntax): boolean =>
  syntax === "strict" || DAEMONS_PREFIX.test(inner)

/** The daemon references of a template string, or the first unknown variable. */
export const templateRefs = (
  value: string,
  syntax: TemplateSyntax = "strict",
): { readonly refs: ReadonlyArray<TemplateRef>; readonly unknown?: string } => {
  const refs: Array<TemplateRef> = []
  for (const m of value.matchAll(PLACEHOLDER)) {
    if (!isTemplate(m[1]!, syntax)) continue
    const daemon = DAEMON_PORT.exec(m[1]!)
    if (!daemon) return { refs, unknown: m[1]!.trim() }
    refs.push({ text: m[0], daemon: daemon[1]! })
  }
  return { refs }
}

export const hasTemplate = (value: string): boolean => /\{\{.*?\}\}/.test(value)

/** Renders every placeholder with `lookup(daemon)`; in "shell" syntax, the others are kept. */
export const renderTemplate = (
  value: string,
  lookup: (daemon: string) => string,
  syntax: TemplateSyntax = "strict",
): string =>
  value.replace(PLACEHOLDER, (text, inner: string) =>
    isTemplate(inner, syntax) ? lookup(DAEMON_PORT.exec(inner)?.[1] ?? inner.trim()) : text,
  )

/** A problem message for a template string, if any. */
export const templateProblem = (value: string, syntax: TemplateSyntax = "strict"): string | undefined => {
  const { unknown } = templateRefs(value, syntax)
  return unknown === undefined
    ? undefined
    : `unknown template variable ${JSON.stringify(unknown)}; the only one is {{ daemons.<name>.port }}`
}
