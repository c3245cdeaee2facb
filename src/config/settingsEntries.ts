// Every setting with its effective value and where that value comes from: the environment, the
// nearest file that sets it (local, project, user, system), or the default.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Schema } from "effect"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { type SettingGroup, settingGroups } from "../domain/Settings.js"
import type { SettingEntry, SettingSource } from "../domain/SettingsOutput.js"
import { parseConfigText } from "./parseFile.js"
import { envOverrideOf } from "./settings.js"
import { settingInfos } from "./settingsInfo.js"

/** The raw settings of each loaded file, in load order (lowest precedence first). */
const fileSettings = (config: ResolvedConfig) =>
  config.files.map((f) => {
    const local = /\.local\.toml$/.test(f.path)
    let text = ""
    try {
      text = fs.readFileSync(f.path, "utf8")
    } catch {
      // gone since it was loaded: it sets nothing
    }
    const parsed = parseConfigText(
      { path: f.path, level: f.level, local, baseDir: nodePath.dirname(f.path) },
      text,
    )
    const source: SettingSource = f.level === "project" ? (local ? "local" : "project") : f.level
    return { path: f.path, source, settings: parsed.settings }
  })

/** The settings in force (`config.settings`) as a file writes them, by group. */
const encoded = (config: ResolvedConfig, group: SettingGroup): Record<string, unknown> =>
  Schema.encodeSync(settingGroups[group] as unknown as Schema.Schema<unknown, Record<string, unknown>>)(
    config.settings[group],
  )

/** Every setting, in the Schema's order; `env` is the environment the configuration was read with. */
export const settingEntries = (
  config: ResolvedConfig,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<SettingEntry> => {
  const files = fileSettings(config)
  const values = new Map<SettingGroup, Record<string, unknown>>()
  return settingInfos().map((info): SettingEntry => {
    if (!values.has(info.group)) values.set(info.group, encoded(config, info.group))
    const value = values.get(info.group)![info.name]
    const file = files.findLast((f) => f.settings[info.group]?.[info.name] !== undefined)
    const fromEnv = envOverrideOf(env, info.group, info.name) !== undefined
    return {
      key: info.key,
      group: info.group,
      type: info.type,
      ...(value === undefined ? {} : { value }),
      ...(info.default === undefined ? {} : { default: info.default }),
      source: fromEnv ? "environment" : (file?.source ?? "default"),
      ...(fromEnv || file === undefined ? {} : { file: file.path }),
      env: info.env,
      description: info.description,
    }
  })
}
