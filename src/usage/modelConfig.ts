import { Schema } from "effect"

/**
 * The `config` node of a usage spec: where the program reads its configuration and the keys it
 * knows. Kept in the model and shown in the docs and `describe`; nothing here reads those files.
 */

/** `file ".mycli.toml" findup=#true format="ini"`: a file the program reads, in order. */
export const ConfigFile = Schema.Struct({
  path: Schema.String,
  findup: Schema.optional(Schema.Boolean),
  format: Schema.optional(Schema.String),
})
export type ConfigFile = typeof ConfigFile.Type

/** `prop "color" default=#true env="COLOR" help="..."`: one configuration key. */
export const ConfigProp = Schema.Struct({
  key: Schema.String,
  /** As text (`#true` is "true", `4` is "4"). */
  default: Schema.optional(Schema.String),
  default_note: Schema.optional(Schema.String),
  data_type: Schema.optional(Schema.String),
  env: Schema.optional(Schema.String),
  help: Schema.optional(Schema.String),
  long_help: Schema.optional(Schema.String),
})
export type ConfigProp = typeof ConfigProp.Type

export const Config = Schema.Struct({
  files: Schema.Array(ConfigFile),
  props: Schema.Array(ConfigProp),
  /** `default "user" "admin"`: a key's default value (as text). */
  defaults: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.String })),
  /** `alias "user" "username"`: another name for a key. */
  aliases: Schema.Array(Schema.Struct({ key: Schema.String, alias: Schema.String })),
})
export type Config = typeof Config.Type
