import { Schema } from "effect"
import { ExitCode, Framing, Selector } from "../model.js"
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
})
export type FlagDescription = typeof FlagDescription.Type

export const ArgDescription = Schema.Struct({
  name: Schema.String,
  usage: Schema.String,
  help: NullableString,
  required: Schema.Boolean,
  variadic: Schema.Boolean,
  choices: Schema.NullOr(Schema.Array(ChoiceDescription)),
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
}).annotations({ identifier: "CommandDescription" })
export type CommandDescription = typeof CommandDescription.Type

/** One entry of `list_commands`. */
export const CommandSummary = Schema.Struct({
  /** From the root: `["daemons", "stop"]`; `[]` for the program itself. */
  path: Schema.Array(Schema.String),
  help: NullableString,
  /** Present (true) only on hidden commands, which are listed only on request. */
  hidden: Schema.optional(Schema.Literal(true)),
}).annotations({ identifier: "CommandSummary" })
export type CommandSummary = typeof CommandSummary.Type

/** `list_commands`: every command, the program itself first. */
export const CommandList = Schema.Array(CommandSummary)
