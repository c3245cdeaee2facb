import { Schema } from "effect"

/** Where a setting's effective value comes from, highest precedence first. */
export const SETTING_SOURCES = ["environment", "local", "project", "user", "system", "default"] as const
export const SettingSource = Schema.Literal(...SETTING_SOURCES)
export type SettingSource = typeof SettingSource.Type

/** One setting, as `settings list --json` and `settings get --json` print it. */
export const SettingEntry = Schema.Struct({
  key: Schema.String.annotations({ description: "group.key, e.g. web.bind_port" }),
  group: Schema.String,
  type: Schema.String.annotations({ description: "duration, boolean, integer, string, one of a|b, table" }),
  value: Schema.optional(
    Schema.Unknown.annotations({
      description: "the effective value, as a file writes it; absent when unset",
    }),
  ),
  default: Schema.optional(Schema.Unknown.annotations({ description: "absent when unset by default" })),
  source: SettingSource,
  /** The file the value comes from (source local, project, user or system). */
  file: Schema.optional(Schema.String),
  env: Schema.String.annotations({ description: "the environment variable that overrides it" }),
  description: Schema.String,
}).annotations({
  identifier: "SettingEntry",
  description: "A setting, its effective value and where it comes from",
})
export type SettingEntry = typeof SettingEntry.Type

export const SettingList = Schema.Array(SettingEntry).annotations({
  identifier: "SettingList",
  description: "Every setting (or those of one group)",
})
