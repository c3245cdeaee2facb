import { Either, Schema } from "effect"
import { type ConfigProblem, InvalidEnvOverride } from "../domain/ConfigProblem.js"
import { type SettingGroup, Settings, settingEnvVars, settingGroups } from "../domain/Settings.js"
import { valueIssues } from "./issues.js"

type RawSettings = Record<string, Record<string, unknown>>

/** Later files override earlier ones key by key. */
export const mergeSettings = (layers: ReadonlyArray<Readonly<RawSettings>>): RawSettings => {
  const out: RawSettings = {}
  for (const layer of layers) {
    for (const [group, values] of Object.entries(layer)) out[group] = { ...out[group], ...values }
  }
  return out
}

// Candidate typed readings of a string (an environment variable, a command line), tried in order.
const readings = (value: string): Array<unknown> => {
  const out: Array<unknown> = [value]
  if (/^(true|false)$/i.test(value)) out.push(value.toLowerCase() === "true")
  if (/^-?\d+(\.\d+)?$/.test(value)) out.push(Number(value))
  return out
}

type GroupSchema = Schema.Struct<Record<string, Schema.Schema.All | Schema.PropertySignature.All>>

/**
 * Reads a setting's value from a string as the loader would from a file: the first typed reading
 * (string, boolean, number) that the setting's schema accepts, as a file writes it; or why none is.
 */
export const readSettingText = (
  group: SettingGroup,
  key: string,
  value: string,
): Either.Either<unknown, string | undefined> => {
  const schema = settingGroups[group] as unknown as GroupSchema
  const probe = Schema.decodeUnknownEither(
    Schema.Struct({ [key]: schema.fields[key]! }) as unknown as Schema.Schema<unknown>,
  )
  let error: string | undefined
  for (const candidate of readings(value)) {
    const r = probe({ [key]: candidate })
    if (Either.isRight(r)) return Either.right(candidate)
    // The string reading's message is the most specific ("has no unit" rather than "expected a string").
    error ??= valueIssues(schema as unknown as Schema.Schema<unknown>, r.left)[0]?.message
  }
  return Either.left(error)
}

/** The variable that sets a setting in `env` (the first of its names set and not empty), if any. */
export const envOverrideOf = (
  env: Readonly<Record<string, string | undefined>>,
  group: string,
  key: string,
): { readonly name: string; readonly value: string } | undefined => {
  for (const name of settingEnvVars(group, key)) {
    const value = env[name]
    if (value !== undefined && value !== "") return { name, value }
  }
  return undefined
}

/**
 * Applies `SUPERVISOR_<GROUP>_<KEY>` variables (or pitchfork's shorter names of them, see
 * `SETTING_ENV_ALIASES`) on top of the merged settings.
 */
export const applyEnvOverrides = (
  merged: RawSettings,
  env: Readonly<Record<string, string | undefined>>,
): { readonly settings: RawSettings; readonly problems: Array<ConfigProblem> } => {
  const settings: RawSettings = { ...merged }
  const problems: Array<ConfigProblem> = []
  for (const [group, schema] of Object.entries(settingGroups) as unknown as Array<
    [SettingGroup, GroupSchema]
  >) {
    for (const key of Object.keys(schema.fields)) {
      const found = envOverrideOf(env, group, key)
      if (found === undefined) continue
      const { name, value } = found
      const read = readSettingText(group, key, value)
      if (Either.isRight(read)) settings[group] = { ...settings[group], [key]: read.right }
      else
        problems.push(
          new InvalidEnvOverride({
            file: `environment variable ${name}`,
            key: `settings.${group}.${key}`,
            message: `invalid value ${JSON.stringify(value)}${read.left ? `: ${read.left}` : ""}`,
            hint: `fix or unset ${name}`,
          }),
        )
    }
  }
  return { settings, problems }
}

/** Decodes the merged settings; values were checked per file, so this only fills defaults. */
export const decodeSettings = (raw: RawSettings): Settings => {
  const known: RawSettings = {}
  for (const group of Object.keys(settingGroups)) if (raw[group]) known[group] = raw[group]!
  const r = Schema.decodeUnknownEither(Settings)(known)
  // A value already reported as a problem leaves the default in place.
  return Either.isRight(r) ? r.right : Schema.decodeSync(Settings)({})
}

/**
 * The settings a project file may set: those the CLI itself reads, and the watch settings the
 * supervisor takes from each daemon's project (docs/watch.md#settings).
 */
const PROJECT_SETTINGS = new Set([
  "supervisor.auto_start",
  "general.startup_log_timestamps",
  "logs.timestamp",
  "logs.timestamp_format",
  "tui.refresh_rate",
  "supervisor.port_bump_attempts",
  "supervisor.file_watch_debounce",
  "supervisor.watch_poll_interval",
])

/**
 * Warnings for settings in a project file that only the supervisor reads: it is shared by every
 * project and loads its settings from the system and user files (and its environment) when it
 * starts, so they would have no effect there.
 */
export const projectSettingWarnings = (
  path: string,
  settings: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Array<string> =>
  Object.entries(settings)
    .flatMap(([group, values]) =>
      Object.keys(values)
        .filter((key) => !PROJECT_SETTINGS.has(`${group}.${key}`) && group in settingGroups)
        .map((key) => `settings.${group}.${key}`),
    )
    .sort()
    .map(
      (key) =>
        `${path}: ${key} has no effect in a project file: the supervisor reads its settings from ~/.config/supervisor/config.toml (and /etc/supervisor/config.toml) and its environment when it starts; move it there`,
    )
