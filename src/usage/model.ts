import { Schema } from "effect"
import { Config } from "./modelConfig.js"
import { Kept } from "./modelKept.js"

export { Config, ConfigFile, ConfigProp, ConfigSource } from "./modelConfig.js"

/**
 * The resolved model of a usage spec (KDL): what every consumer reads (validation of a command
 * line, completions, Markdown and man pages, the MCP describe operation, the SDK generators and
 * the KDL writer). Parsing and resolution (`parse.ts`, `resolve.ts`) produce it; it is also the
 * `supervisor spec resolve --json` output.
 *
 * Everything is already resolved: inherited outputs and exit codes are folded into each
 * command, a command-level `select` has filled its flag's choices, schema files are loaded.
 */

/** `text`: unstructured; `json`: one document read to end of stream; `jsonl`: one document per line. */
export const Framing = Schema.Literal("text", "json", "jsonl")
export type Framing = typeof Framing.Type
/** The framings a consumer parses (JSON documents): every one but `text`. */
export type ParsedFraming = Exclude<Framing, "text">
export const PARSED_FRAMINGS = Framing.literals.filter((f): f is ParsedFraming => f !== "text")

export { KdlScalar, Kept } from "./modelKept.js"

/** What running a command (or giving a flag or argument) does: usage's `effect`, least to most dangerous. */
export const Effect = Schema.Literal("read", "write", "destructive")
export type Effect = typeof Effect.Type

/** One choice of a value flag, with its own help when the spec (or an output) gives one. */
export const Choice = Schema.Struct({
  value: Schema.String,
  help: Schema.optional(Schema.String),
  /** Accepted but not offered (completion) or listed (docs). */
  hide: Schema.optional(Schema.Boolean),
  /** Other spellings accepted for it (`alias "yes"` in a `choice` block). */
  aliases: Schema.optional(
    Schema.Array(Schema.Struct({ value: Schema.String, hide: Schema.optional(Schema.Boolean) })),
  ),
})
export type Choice = typeof Choice.Type

/** The value a flag or argument takes, as a flag's `arg` holds it. */
const FlagValue = Schema.Struct({
  name: Schema.String,
  required: Schema.Boolean,
  /** Declared choices, or those a `select` filled from the effective output names. */
  choices: Schema.optional(Schema.Array(Choice)),
  /** `choices ignore_case=#true`. */
  ignore_case: Schema.optional(Schema.Boolean),
  /** `choices strict=#false`: other values are accepted too. */
  choices_strict: Schema.optional(Schema.Boolean),
  /** `choices env="VAR"`: the values listed in VAR (comma or space separated) are choices too. */
  choices_env: Schema.optional(Schema.String),
})

/** A flag, from its spec string such as `"-f --format <FMT>"`. */
export const Flag = Schema.Struct({
  /** The spec string as written, e.g. `-f --format <FMT>`. */
  usage: Schema.String,
  /** Long names without dashes (`format`), in order; the first is the canonical one. */
  long: Schema.Array(Schema.String),
  /** Short names without the dash (`f`). */
  short: Schema.Array(Schema.String),
  help: Schema.optional(Schema.String),
  /** Declared with `global=#true` (on an ancestor): available to every subcommand. */
  global: Schema.Boolean,
  hide: Schema.Boolean,
  /** Repeatable (`var=#true`, `--tag...` or `<tag>...`). */
  variadic: Schema.Boolean,
  /** The value it takes (`<FMT>` or a child `arg`); absent for a boolean flag. */
  arg: Schema.optional(FlagValue),
  default: Schema.optional(Schema.String),
  /** The explicit name of `"color: --color"`, when the usage string gives one. */
  name: Schema.optional(Schema.String),
  long_help: Schema.optional(Schema.String),
  /** `required=#true` (a default makes it optional again). */
  required: Schema.optional(Schema.Boolean),
  /** `count=#true`: `-vvv` counts. */
  count: Schema.optional(Schema.Boolean),
  /** The name that turns it off: `negate="--no-color"`. */
  negate: Schema.optional(Schema.String),
  /** The environment variable that can set it. */
  env: Schema.optional(Schema.String),
  /** Why it is deprecated (`deprecated=#true` reads "deprecated"). */
  deprecated: Schema.optional(Schema.String),
  /** Several defaults (`default { "a"; "b" }`); `default` then holds the first. */
  default_list: Schema.optional(Schema.Array(Schema.String)),
  /** Flags it cannot be given with (`conflicts`), and that it overrides (the last one wins). */
  conflicts: Schema.optional(Schema.Array(Schema.String)),
  overrides: Schema.optional(Schema.Array(Schema.String)),
  /** `exclusive=#true`: given alone or not at all. */
  exclusive: Schema.optional(Schema.Boolean),
  /** Names from `alias ... hide=#true`: accepted, never offered or listed. */
  hidden_names: Schema.optional(Schema.Array(Schema.String)),
  effect: Schema.optional(Effect),
  kept: Schema.optional(Kept),
})
export type Flag = typeof Flag.Type

/** How a positional relates to `--` (usage's `double_dash`). */
export const DoubleDash = Schema.Literal("required", "optional", "automatic", "preserve")
export type DoubleDash = typeof DoubleDash.Type

/** A positional argument: `<x>` or `x` required, `[x]` optional, `<x>...` (or `…`) variadic. */
export const Arg = Schema.Struct({
  name: Schema.String,
  usage: Schema.String,
  required: Schema.Boolean,
  variadic: Schema.Boolean,
  help: Schema.optional(Schema.String),
  choices: Schema.optional(Schema.Array(Choice)),
  ignore_case: Schema.optional(Schema.Boolean),
  choices_strict: Schema.optional(Schema.Boolean),
  choices_env: Schema.optional(Schema.String),
  long_help: Schema.optional(Schema.String),
  default: Schema.optional(Schema.String),
  default_list: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.String),
  hide: Schema.optional(Schema.Boolean),
  /** Absent: `optional` (`--` may come before it); `required` is `[-- name]` or `double_dash="required"`. */
  double_dash: Schema.optional(DoubleDash),
  var_min: Schema.optional(Schema.Number),
  var_max: Schema.optional(Schema.Number),
  effect: Schema.optional(Effect),
  kept: Schema.optional(Kept),
})
export type Arg = typeof Arg.Type

/** How an output is chosen on the command line. */
export const Selector = Schema.Union(
  /** `--format json`: a value flag (command-level `select "--format"`). */
  Schema.Struct({ kind: Schema.Literal("value"), flag: Schema.String, value: Schema.String }),
  /** `--json`: a boolean flag (`select="--json"` on the output). */
  Schema.Struct({ kind: Schema.Literal("present"), flag: Schema.String }),
)
export type Selector = typeof Selector.Type

/** An effective output of a command. */
export const Output = Schema.Struct({
  name: Schema.String,
  media_type: Schema.optional(Schema.String),
  framing: Framing,
  help: Schema.optional(Schema.String),
  default: Schema.Boolean,
  /** How to ask for it; null when nothing selects it (for example the default text output). */
  selector: Schema.NullOr(Selector),
  /** The schema text, verbatim (inline, or the file's content). */
  schema: Schema.optional(Schema.String),
  /** The file the schema came from (absolute), when it came from a file. */
  schema_file: Schema.optional(Schema.String),
})
export type Output = typeof Output.Type

export const ExitCode = Schema.Struct({ code: Schema.Int, description: Schema.String })
export type ExitCode = typeof ExitCode.Type

/**
 * A `complete` node: how the values of the argument (or flag value) of that name are completed
 * at the shell, by running a command (`run`), by a type (`type="file"`) or by another program's
 * own completion (`delegate`). `descriptions=#true`: the command prints `value:description`.
 */
export const Complete = Schema.Struct({
  /** The argument or value name it completes, lower-cased as usage matches it. */
  name: Schema.String,
  run: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String),
  delegate: Schema.optional(Schema.String),
  descriptions: Schema.Boolean,
})
export type Complete = typeof Complete.Type

/**
 * `mount run="..."`: a command whose output (a usage spec) adds subcommands at run time;
 * `overrides_default`: a discovered command wins over the spec's `default_subcommand`.
 */
export const Mount = Schema.Struct({ run: Schema.String, overrides_default: Schema.optional(Schema.Boolean) })
export type Mount = typeof Mount.Type

export const Example = Schema.Struct({
  code: Schema.String,
  header: Schema.optional(Schema.String),
  help: Schema.optional(Schema.String),
  lang: Schema.optional(Schema.String),
})
export type Example = typeof Example.Type

/** A node of the usage format this module does not interpret, kept to be written back. */
export const PassthroughNode = Schema.Struct({
  /** The node as KDL text, as the writer re-emits it. */
  kdl: Schema.String,
})
export type PassthroughNode = typeof PassthroughNode.Type

/** What a command node (or the top level, for the root) may say besides its structure. */
export interface CommandAttrs {
  readonly help?: string | undefined
  readonly long_help?: string | undefined
  readonly hide: boolean
  readonly effect?: Effect | undefined
  readonly subcommand_required?: boolean | undefined
  readonly deprecated?: string | undefined
  readonly before_help?: string | undefined
  readonly before_long_help?: string | undefined
  readonly after_help?: string | undefined
  readonly after_long_help?: string | undefined
  /** The heading the command is listed under in its parent's help (`Daemons`); usage's `help_heading`. */
  readonly help_heading?: string | undefined
  readonly kept?: Kept | undefined
}

export interface Command extends CommandAttrs {
  /** The command's name (the root command: the CLI's `bin`). */
  readonly name: string
  /** From the root, root excluded: `["daemons", "start"]`; `[]` for the root. */
  readonly path: ReadonlyArray<string>
  readonly aliases: ReadonlyArray<string>
  /** Its own flags and the globals it inherits (global ones marked `global`). */
  readonly flags: ReadonlyArray<Flag>
  readonly args: ReadonlyArray<Arg>
  /** Effective outputs, after inheritance (refined, hidden ones removed), in declaration order. */
  readonly outputs: ReadonlyArray<Output>
  /** The effective command-level `select` flag (its canonical `--name`), if any. */
  readonly select?: string | undefined
  /** Effective exit codes, folded by number, the root's order first. */
  readonly exit_codes: ReadonlyArray<ExitCode>
  readonly examples: ReadonlyArray<Example>
  readonly subcommands: ReadonlyArray<Command>
  /** Nodes of the usage language kept as they were, not acted on (`group`, ...). */
  readonly passthrough: ReadonlyArray<PassthroughNode>
  /** `alias "x" hide=#true`: accepted, never listed or offered. */
  readonly hidden_aliases?: ReadonlyArray<string> | undefined
  /** Completers in effect: the spec's (top level) and the command's own, which win by name. */
  readonly complete?: ReadonlyArray<Complete> | undefined
  readonly mounts?: ReadonlyArray<Mount> | undefined
}

export const CommandSchema: Schema.Schema<Command> = Schema.Struct({
  name: Schema.String,
  path: Schema.Array(Schema.String),
  aliases: Schema.Array(Schema.String),
  help: Schema.optional(Schema.String),
  long_help: Schema.optional(Schema.String),
  hide: Schema.Boolean,
  flags: Schema.Array(Flag),
  args: Schema.Array(Arg),
  outputs: Schema.Array(Output),
  select: Schema.optional(Schema.String),
  exit_codes: Schema.Array(ExitCode),
  examples: Schema.Array(Example),
  subcommands: Schema.Array(Schema.suspend((): Schema.Schema<Command> => CommandSchema)),
  passthrough: Schema.Array(PassthroughNode),
  effect: Schema.optional(Effect),
  subcommand_required: Schema.optional(Schema.Boolean),
  deprecated: Schema.optional(Schema.String),
  before_help: Schema.optional(Schema.String),
  before_long_help: Schema.optional(Schema.String),
  after_help: Schema.optional(Schema.String),
  after_long_help: Schema.optional(Schema.String),
  help_heading: Schema.optional(Schema.String),
  hidden_aliases: Schema.optional(Schema.Array(Schema.String)),
  complete: Schema.optional(Schema.Array(Complete)),
  mounts: Schema.optional(Schema.Array(Mount)),
  kept: Schema.optional(Kept),
})

/** A whole resolved spec. */
export const Spec = Schema.Struct({
  name: Schema.optional(Schema.String),
  /** The program's name; `""` when neither the spec nor its file name gives one. */
  bin: Schema.String,
  version: Schema.optional(Schema.String),
  long_version: Schema.optional(Schema.String),
  about: Schema.optional(Schema.String),
  long_about: Schema.optional(Schema.String),
  author: Schema.optional(Schema.String),
  license: Schema.optional(Schema.String),
  /** The usage line as the author wrote it (`usage "x [flags]"`). */
  usage: Schema.optional(Schema.String),
  repository: Schema.optional(Schema.String),
  source_code_link_template: Schema.optional(Schema.String),
  min_usage_version: Schema.optional(Schema.String),
  config: Schema.optional(Config),
  /** The root command; its `path` is `[]`. */
  root: CommandSchema,
  /** Every file read: the spec, its includes and schema files (absolute paths, in read order). */
  sources: Schema.Array(Schema.String),
  /** Top-level nodes of the usage language kept as they were, not acted on (`view`, ...). */
  passthrough: Schema.Array(PassthroughNode),
  /** Top-level properties kept, not acted on (`disable_help #true`, `help_template "..."`). */
  kept: Schema.optional(Kept),
})
export type Spec = typeof Spec.Type
