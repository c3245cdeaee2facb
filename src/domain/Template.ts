/**
 * Templates: `{{ ... }}` placeholders in config values, rendered by the supervisor at each start
 * (docs/templates.md). A placeholder names one value:
 *
 * - `daemon.id`, `daemon.name`, `daemon.namespace`, `daemon.dir`: the daemon's own;
 * - `daemon.instance`: which instance it is (1 to N with `instances`; 1 without);
 * - `daemon.port`, `daemon.ports[N]`: its resolved ports (after bumping);
 * - `daemons.<name>.port`, `daemons.<name>.proxy_url`: another daemon's (short name or qualified ID);
 * - `env.VAR`: a variable of the daemon's environment;
 * - `settings.<group>.<key>`: a setting in force for the supervisor.
 */
import { settingGroups } from "./Settings.js"
import { closest } from "./suggest.js"

/** What a placeholder names. */
export type TemplateName =
  | { readonly _tag: "DaemonField"; readonly field: "id" | "name" | "namespace" | "dir" | "instance" }
  | { readonly _tag: "DaemonPort"; readonly index: number }
  | { readonly _tag: "OtherDaemon"; readonly daemon: string; readonly field: "port" | "proxy_url" }
  | { readonly _tag: "Env"; readonly variable: string }
  | { readonly _tag: "Setting"; readonly key: string }

/** One placeholder of a value: its text as written and the name it renders. */
export interface TemplateRef {
  readonly text: string
  readonly name: TemplateName
}

/** A placeholder that names nothing, with the closest valid name when one is close enough. */
export interface UnknownTemplate {
  readonly name: string
  readonly suggestion?: string
}

/**
 * Where a template is written. In `ready_*` values every `{{ ... }}` is a template ("strict"). In
 * a shell command or environment value (`run`, `env`, hooks) only a placeholder whose first word
 * is a root (`daemon`, `daemons`, `env`, `settings`) or a near miss of one, followed by `.` or
 * `[`, is one ("shell"): any other `{{ ... }}`, such as `docker ps --format '{{.Names}}'` or an
 * awk block, is the command's own text and kept as written.
 */
export type TemplateSyntax = "strict" | "shell"

/** The settings a template may name: every scalar one but the API token (a secret of the supervisor). */
export const TEMPLATE_SETTINGS: ReadonlyArray<string> = Object.entries(settingGroups).flatMap(
  ([group, schema]) =>
    Object.keys(schema.fields)
      .map((key) => `${group}.${key}`)
      .filter((key) => key !== "api.token" && key !== "logs.archive_hook"),
)

/** Every name, as docs and hints write them. */
export const TEMPLATE_FORMS: ReadonlyArray<string> = [
  "daemon.id",
  "daemon.name",
  "daemon.namespace",
  "daemon.dir",
  "daemon.instance",
  "daemon.port",
  "daemon.ports[N]",
  "daemons.<name>.port",
  "daemons.<name>.proxy_url",
  "env.<VAR>",
  "settings.<group>.<key>",
]

const ROOTS = ["daemon", "daemons", "env", "settings"]
/** The daemon's own names that take no index: those of TEMPLATE_FORMS. */
const DAEMON_NAMES = TEMPLATE_FORMS.filter((f) => f.startsWith("daemon.") && !f.includes("["))

const PLACEHOLDER = /\{\{(.*?)\}\}/g
const FIRST_WORD = /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*[.[]/

const isTemplate = (inner: string, syntax: TemplateSyntax): boolean => {
  if (syntax === "strict") return true
  const word = FIRST_WORD.exec(inner)?.[1]
  return word !== undefined && (ROOTS.includes(word) || closest(word, ROOTS) !== undefined)
}

/** The name a placeholder's text (between the braces) renders, or undefined when it names nothing. */
export const parseTemplateName = (inner: string): TemplateName | undefined => {
  const s = inner.trim()
  let m = /^daemon\.(id|name|namespace|dir|instance)$/.exec(s)
  if (m) return { _tag: "DaemonField", field: m[1] as "id" | "name" | "namespace" | "dir" | "instance" }
  if (s === "daemon.port") return { _tag: "DaemonPort", index: 0 }
  m = /^daemon\.ports\[\s*(\d+)\s*\]$/.exec(s)
  if (m) return { _tag: "DaemonPort", index: Number(m[1]) }
  m = /^daemons\.(\S+)\.(port|proxy_url)$/.exec(s)
  if (m) return { _tag: "OtherDaemon", daemon: m[1]!, field: m[2] as "port" | "proxy_url" }
  m = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(s)
  if (m) return { _tag: "Env", variable: m[1]! }
  m = /^settings\.(\S+)$/.exec(s)
  if (m && TEMPLATE_SETTINGS.includes(m[1]!)) return { _tag: "Setting", key: m[1]! }
  return undefined
}

/** The valid name closest to an unknown one, if one is close enough to be a typo. */
const suggestionFor = (name: string): string | undefined => {
  const rest = name.slice(name.indexOf(".") + 1)
  const candidates = [...DAEMON_NAMES, "daemon.ports[0]", ...TEMPLATE_SETTINGS.map((k) => `settings.${k}`)]
  // `daemons.api.prot`, `daemon.api.port`: the same daemon with a valid field
  const other = /^[A-Za-z_-]+\.(\S+)\.[^.]*$/.exec(name)?.[1]
  if (other !== undefined) candidates.push(`daemons.${other}.port`, `daemons.${other}.proxy_url`)
  // `envv.HOME`: the same variable
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(rest)) candidates.push(`env.${rest}`)
  // `settings.tld`: the one setting of that name
  const bySettingName = TEMPLATE_SETTINGS.filter((k) => k.endsWith(`.${rest}`))
  if (/^settings?\./.test(name) && bySettingName.length === 1) return `settings.${bySettingName[0]}`
  return closest(name, candidates)
}

/** The references of a template string, or the first placeholder that names nothing. */
export const templateRefs = (
  value: string,
  syntax: TemplateSyntax = "strict",
): { readonly refs: ReadonlyArray<TemplateRef>; readonly unknown?: UnknownTemplate } => {
  const refs: Array<TemplateRef> = []
  for (const m of value.matchAll(PLACEHOLDER)) {
    if (!isTemplate(m[1]!, syntax)) continue
    const name = parseTemplateName(m[1]!)
    if (name === undefined) {
      const unknown = m[1]!.trim()
      const suggestion = suggestionFor(unknown)
      return { refs, unknown: suggestion === undefined ? { name: unknown } : { name: unknown, suggestion } }
    }
    refs.push({ text: m[0], name })
  }
  return { refs }
}

/** A `daemons.<name>.<field>` reference: the placeholder's text and the daemon's name as written. */
export interface DaemonRef {
  readonly text: string
  readonly daemon: string
  readonly field: "port" | "proxy_url"
}

/** The `daemons.<name>` references of a template string. */
export const daemonRefs = (value: string, syntax: TemplateSyntax = "strict"): ReadonlyArray<DaemonRef> =>
  templateRefs(value, syntax).refs.flatMap((r) =>
    r.name._tag === "OtherDaemon" ? [{ text: r.text, daemon: r.name.daemon, field: r.name.field }] : [],
  )

export const hasTemplate = (value: string): boolean => /\{\{.*?\}\}/.test(value)

/**
 * Renders every template placeholder with `render`; a placeholder that names nothing (see
 * `templateRefs`) and, in "shell" syntax, any other `{{ ... }}` are kept as written.
 */
export const renderTemplate = (
  value: string,
  render: (ref: TemplateRef) => string,
  syntax: TemplateSyntax = "strict",
): string =>
  value.replace(PLACEHOLDER, (text, inner: string) => {
    if (!isTemplate(inner, syntax)) return text
    const name = parseTemplateName(inner)
    return name === undefined ? text : render({ text, name })
  })

/** What is wrong with a placeholder that names nothing, with the closest valid name. */
export const unknownTemplateMessage = (unknown: UnknownTemplate): string =>
  `unknown template variable ${JSON.stringify(unknown.name)}; ${
    unknown.suggestion === undefined
      ? `the variables are ${TEMPLATE_FORMS.map((f) => `{{ ${f} }}`).join(", ")}`
      : `did you mean {{ ${unknown.suggestion} }}?`
  }`

/** A problem message for a template string, if any. */
export const templateProblem = (value: string, syntax: TemplateSyntax = "strict"): string | undefined => {
  const { unknown } = templateRefs(value, syntax)
  return unknown === undefined ? undefined : unknownTemplateMessage(unknown)
}
