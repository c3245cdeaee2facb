// pitchfork's other spellings of keys we have, read as ours with a warning that names the file,
// line and key and shows our form: a flat `[settings] interval`, and on a daemon `expect` and
// `bump` (our `port`), a `[daemons.<name>.ready]` table (our `ready_*` keys) and `time_retention`,
// `line_retention`, `archive_hook` (our `[daemons.<name>.logs]`). Writing both spellings of one
// key in one table is a problem: which one is meant cannot be told.
import { type ConfigProblem, ConflictingKeys } from "../domain/ConfigProblem.js"
import type { DaemonOptions } from "../domain/DaemonOptions.js"
import { FLAT_SETTINGS } from "../domain/flatSettings.js"

/** Where a key is: the file, and its line when found. */
export type At = (path: ReadonlyArray<string>) => { readonly file: string; readonly line?: number }

export interface Folded<A> {
  readonly value: A
  readonly warnings: ReadonlyArray<string>
  readonly problems: ReadonlyArray<ConfigProblem>
}

/** A value as TOML writes it, for the form a warning shows. */
export const tomlText = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(tomlText).join(", ")}]`
    : typeof v === "object" && v !== null
      ? `{ ${Object.entries(v)
          .map(([k, x]) => `${k} = ${tomlText(x)}`)
          .join(", ")} }`
      : typeof v === "string"
        ? JSON.stringify(v)
        : String(v)

const located = (at: At, path: ReadonlyArray<string>) => {
  const where = at(path)
  return `${where.file}${where.line === undefined ? "" : `:${where.line}`}: ${path.join(".")}`
}

const conflict = (at: At, path: ReadonlyArray<string>, message: string, hint: string) =>
  new ConflictingKeys({ ...at(path), key: path.join("."), message, hint })

type RawTable = Record<string, unknown>
const isTable = (v: unknown): v is RawTable => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The raw `[settings]` table by group, with each flat key (`[settings] interval`) moved into its
 * group (`general`). `settings` is the table as written; non-table values that are not flat keys
 * are left out (the file schema reports them).
 */
export const foldFlatSettings = (settings: RawTable, at: At): Folded<Record<string, RawTable>> => {
  const out: Record<string, RawTable> = {}
  for (const [group, value] of Object.entries(settings))
    if (isTable(value) && !(group in FLAT_SETTINGS)) out[group] = { ...value }
  const warnings: Array<string> = []
  const problems: Array<ConfigProblem> = []
  for (const [key, value] of Object.entries(settings)) {
    const group = FLAT_SETTINGS[key]
    if (group === undefined) continue
    const path = ["settings", key]
    if (out[group]?.[key] !== undefined) {
      problems.push(
        conflict(
          at,
          path,
          `both settings.${key} and settings.${group}.${key} are set`,
          `remove settings.${key}: [settings] ${key} is pitchfork's flat form of [settings.${group}] ${key}`,
        ),
      )
      continue
    }
    out[group] = { ...out[group], [key]: value }
    warnings.push(
      `${located(at, path)}: pitchfork's flat [settings] form is deprecated; write it in its table: [settings.${group}] ${key} = ${tomlText(value)}`,
    )
  }
  return { value: out, warnings, problems }
}

type Options = { -readonly [K in keyof DaemonOptions]: DaemonOptions[K] }
const READY_SUBKEYS = ["delay", "output", "http", "port", "cmd"] as const
const LOG_KEYS = ["time_retention", "line_retention", "archive_hook"] as const

/**
 * A daemon's options with pitchfork's spellings folded into ours. `raw` is its table as written
 * (for the values the warnings show).
 */
export const foldDaemonForms = (
  name: string,
  options: DaemonOptions,
  raw: RawTable,
  at: At,
): Folded<DaemonOptions> => {
  const o: Options = { ...options }
  const warnings: Array<string> = []
  const problems: Array<ConfigProblem> = []
  const path = (...keys: Array<string>) => ["daemons", name, ...keys]

  // `expect` and `bump`: pitchfork's `port = { expect, bump }` keys, written on the daemon
  const { expect, bump } = o
  delete o.expect
  delete o.bump
  if (expect !== undefined || bump !== undefined) {
    const first = expect !== undefined ? "expect" : "bump"
    const written = { expect: raw.expect ?? ["..."], ...(bump === undefined ? {} : { bump: raw.bump }) }
    if (o.port !== undefined)
      problems.push(
        conflict(
          at,
          path(first),
          "both `port` and pitchfork's `expect`/`bump` keys are set",
          "remove `expect` and `bump`; `port` = { expect = [...], bump = N } replaces them",
        ),
      )
    else if (expect === undefined)
      warnings.push(
        `${located(at, path("bump"))}: \`bump\` on a daemon is deprecated and has no effect without \`expect\`; write port = ${tomlText(written)}`,
      )
    else {
      o.port = { expect, bump: bump ?? false }
      warnings.push(
        `${located(at, path(first))}: \`expect\` and \`bump\` on a daemon are deprecated; write port = ${tomlText(written)}`,
      )
    }
  }

  // `[daemons.<name>.ready]`: each key is a `ready_<key>`
  const ready = o.ready
  delete o.ready
  const rawReady = isTable(raw.ready) ? raw.ready : {}
  for (const sub of READY_SUBKEYS) {
    const value = ready?.[sub]
    if (value === undefined) continue
    const ours = `ready_${sub}` as const
    if (o[ours] !== undefined) {
      problems.push(
        conflict(
          at,
          path("ready", sub),
          `both \`ready.${sub}\` and \`${ours}\` are set`,
          `remove ready.${sub}: it is another spelling of ${ours}`,
        ),
      )
      continue
    }
    // the same schema decoded both: the value fits the key
    ;(o as Record<string, unknown>)[ours] = value
    warnings.push(
      `${located(at, path("ready", sub))}: the [daemons.${name}.ready] table is deprecated; write ${ours} = ${tomlText(rawReady[sub])} in [daemons.${name}]`,
    )
  }

  // `time_retention`, `line_retention`, `archive_hook` on the daemon: our `[daemons.<name>.logs]` keys
  for (const key of LOG_KEYS) {
    const value = o[key]
    delete o[key]
    if (value === undefined) continue
    if (o.logs?.[key] !== undefined) {
      problems.push(
        conflict(
          at,
          path(key),
          `both \`${key}\` and \`logs.${key}\` are set`,
          `remove ${key}: it is another spelling of logs.${key}`,
        ),
      )
      continue
    }
    o.logs = { ...o.logs, [key]: value }
    warnings.push(
      `${located(at, path(key))}: \`${key}\` on a daemon is deprecated; write it in [daemons.${name}.logs]: ${key} = ${tomlText(raw[key])}`,
    )
  }
  return { value: o, warnings, problems }
}
