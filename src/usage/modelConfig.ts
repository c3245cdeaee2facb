import { Schema } from "effect"
import { Kept } from "./modelKept.js"

/**
 * The `config` node of a usage spec: where the program reads its configuration and the keys it
 * knows. Kept in the model and shown in the docs and `describe`; nothing here reads those files.
 */

/** `file ".mycli.toml" findup=#true format="ini"`: a file the program reads, in order. */
export const ConfigFile = Schema.Struct({
  path: Schema.String,
  findup: Schema.optional(Schema.Boolean),
  /** Who may write it: `project` (usage's default: a repository can carry it), `global`, `system`. */
  scope: Schema.optional(Schema.Literal("project", "global", "system")),
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
  /** `type="list<string>"`: the type in usage's grammar (`data_type` is the older spelling). */
  type: Schema.optional(Schema.String),
  env: Schema.optional(Schema.String),
  help: Schema.optional(Schema.String),
  long_help: Schema.optional(Schema.String),
  /** Why the key is deprecated. */
  deprecated: Schema.optional(Schema.String),
  /** The rest of what usage says of a key (`merge`, `scope`, `cli`, `choices`, ...), kept as written. */
  kept: Schema.optional(Kept),
})
export type ConfigProp = typeof ConfigProp.Type

/** `source "git" name="git config" doc_hint="..." set_hint="..."`: a kind of source usage does not read. */
export const ConfigSource = Schema.Struct({
  kind: Schema.String,
  name: Schema.optional(Schema.String),
  doc_hint: Schema.optional(Schema.String),
  set_hint: Schema.optional(Schema.String),
})
export type ConfigSource = typeof ConfigSource.Type

export const Config = Schema.Struct({
  files: Schema.Array(ConfigFile),
  props: Schema.Array(ConfigProp),
  /** `default "user" "admin"`: a key's default value (as text). */
  defaults: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.String })),
  /** `alias "user" "username"`: another name for a key. */
  aliases: Schema.Array(Schema.Struct({ key: Schema.String, alias: Schema.String })),
  sources: Schema.optional(Schema.Array(ConfigSource)),
})
export type Config = typeof Config.Type
