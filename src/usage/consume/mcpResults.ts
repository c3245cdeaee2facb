import { Schema } from "effect"
import { type Config, DoubleDash, Effect, ExitCode, Framing, Selector } from "../model.js"
import type { Json } from "./schema-text.js"

/**
 * The results of the MCP operations over a spec (mcp.ts), as Schemas: what `supervisor spec
 * describe` prints, and what its usage spec declares. Plain JSON: absent values are `null`, not
 * missing keys, so a tool result serialises the same way in every client.
 */

const NullableString = Schema.NullOr(Schema.String)

/** A JSON value, as `JSON.parse` produces it. */
export const JsonValue: Schema.Schema<Json> = Schema.Union(
  Schema.Null,
  Schema.Boolean,
  Schema.Number,
  Schema.String,
  Schema.Array(Schema.suspend(() => JsonValue)),
  Schema.Record({ key: Schema.String, value: Schema.suspend(() => JsonValue) }),
).annotations({ identifier: "JsonValue" })

export const ChoiceDescription = Schema.Struct({ value: Schema.String, help: NullableString })
export type ChoiceDescription = typeof ChoiceDescription.Type

export const FlagDescription = Schema.Struct({
  /** With dashes, short names first: `["-f", "--format"]`. */
  names: Schema.Array(Schema.String),
  help: NullableString,
  takes_value: Schema.Boolean,
  /** The value placeholder (`FMT`), null for a boolean flag. */
  value_name: NullableString,
  /** Whether the value may be left out (`--color` or `--color=always`). */
  value_optional: Schema.Boolean,
  choices: Schema.NullOr(Schema.Array(ChoiceDescription)),
  default: NullableString,
  global: Schema.Boolean,
  repeatable: Schema.Boolean,
  /** Must be given (`required=#true`; a default or an environment variable can stand in). */
  required: Schema.Boolean,
  /** The environment variable that can set it. */
  env: NullableString,
  /** The name that turns it off (`--no-color`). */
  negate: NullableString,
  deprecated: NullableString,
  /** What giving it does, when it raises the command's effect. */
  effect: Schema.NullOr(Effect),
})
export type FlagDescription = typeof FlagDescription.Type

export const ArgDescription = Schema.Struct({
  name: Schema.String,
  usage: Schema.String,
  help: NullableString,
  required: Schema.Boolean,
  variadic: Schema.Boolean,
  choices: Schema.NullOr(Schema.Array(ChoiceDescription)),
  default: NullableString,
  env: NullableString,
  /** `required`: given after `--`; `automatic`: everything after it is a value; null: as usual. */
  double_dash: Schema.NullOr(DoubleDash),
})
export type ArgDescription = typeof ArgDescription.Type

export const OutputDescription = Schema.Struct({
  name: Schema.String,
  framing: Framing,
  media_type: NullableString,
  help: NullableString,
  default: Schema.Boolean,
  selector: Schema.NullOr(Selector),
  /** The parsed schema when its text is JSON (an object or boolean); else the text as given; null without one. */
  schema: Schema.NullOr(JsonValue),
})
export type OutputDescription = typeof OutputDescription.Type

/** A spec's `config`: the files the program reads, in order, and the keys it knows. */
export const ConfigDescription = Schema.Struct({
  files: Schema.Array(Schema.Struct({ path: Schema.String, findup: Schema.Boolean, format: NullableString })),
  props: Schema.Array(
    Schema.Struct({
      key: Schema.String,
      default: NullableString,
      default_note: NullableString,
      data_type: NullableString,
      env: NullableString,
      help: NullableString,
      long_help: NullableString,
    }),
  ),
  defaults: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.String })),
  aliases: Schema.Array(Schema.Struct({ key: Schema.String, alias: Schema.String })),
}).annotations({ identifier: "ConfigDescription" })
export type ConfigDescription = typeof ConfigDescription.Type

export const describeConfig = (config: Config): ConfigDescription => ({
  files: config.files.map((f) => ({ path: f.path, findup: f.findup === true, format: f.format ?? null })),
  props: config.props.map((p) => ({
    key: p.key,
    default: p.default ?? null,
    default_note: p.default_note ?? null,
    data_type: p.type ?? p.data_type ?? null,
    env: p.env ?? null,
    help: p.help ?? null,
    long_help: p.long_help ?? null,
  })),
  defaults: config.defaults,
  aliases: config.aliases,
})

/** `describe_command`: how to call a command and what it prints. */
export const CommandDescription = Schema.Struct({
  name: Schema.String,
  /** From the root, canonical names: `["daemons", "stop"]`. */
  path: Schema.Array(Schema.String),
  aliases: Schema.Array(Schema.String),
  usage: Schema.String,
  help: NullableString,
  long_help: NullableString,
  /** Visible flags, inherited globals included. */
  flags: Schema.Array(FlagDescription),
  args: Schema.Array(ArgDescription),
  /** Visible subcommands' names, to descend further. */
  subcommands: Schema.Array(Schema.String),
  outputs: Schema.Array(OutputDescription),
  exit_codes: Schema.Array(ExitCode),
  /** What running it does: read, write or destructive (usage's `effect`); null when not said. */
  effect: Schema.NullOr(Effect),
  deprecated: NullableString,
  /** Whether it needs a subcommand. */
  subcommand_required: Schema.Boolean,
  /** Commands whose output (a usage spec) adds subcommands at run time (`mount run=...`). */
  mounts: Schema.Array(Schema.String),
  /** The program's configuration (files and keys); only on the program itself, else null. */
  config: Schema.NullOr(ConfigDescription),
}).annotations({ identifier: "CommandDescription" })
export type CommandDescription = typeof CommandDescription.Type

/** One entry of `list_commands`. */
export const CommandSummary = Schema.Struct({
  /** From the root: `["daemons", "stop"]`; `[]` for the program itself. */
  path: Schema.Array(Schema.String),
  help: NullableString,
  /** What running it does (read, write, destructive), null when the spec does not say. */
  effect: Schema.NullOr(Effect),
  /** Present (true) only on hidden commands, which are listed only on request. */
  hidden: Schema.optional(Schema.Literal(true)),
}).annotations({ identifier: "CommandSummary" })
export type CommandSummary = typeof CommandSummary.Type

/** `list_commands`: every command, the program itself first. */
export const CommandList = Schema.Array(CommandSummary)
