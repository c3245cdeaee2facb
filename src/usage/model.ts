import { Schema } from "effect"

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

/** One choice of a value flag, with its own help when the spec (or an output) gives one. */
export const Choice = Schema.Struct({
  value: Schema.String,
  help: Schema.optional(Schema.String),
})
export type Choice = typeof Choice.Type

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
  /** Repeatable (`var=#true`). */
  variadic: Schema.Boolean,
  /** The value it takes (`<FMT>` or a child `arg`); absent for a boolean flag. */
  arg: Schema.optional(
    Schema.Struct({
      name: Schema.String,
      required: Schema.Boolean,
      /** Declared choices, or those a `select` filled from the effective output names. */
      choices: Schema.optional(Schema.Array(Choice)),
    }),
  ),
  default: Schema.optional(Schema.String),
})
export type Flag = typeof Flag.Type

/** A positional argument: `<x>` required, `[x]` optional, `<x>...` variadic. */
export const Arg = Schema.Struct({
  name: Schema.String,
  usage: Schema.String,
  required: Schema.Boolean,
  variadic: Schema.Boolean,
  help: Schema.optional(Schema.String),
  choices: Schema.optional(Schema.Array(Choice)),
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

/** A node of the usage format this module does not interpret, kept to be written back. */
export const PassthroughNode = Schema.Struct({
  /** The node as KDL text, as the writer re-emits it. */
  kdl: Schema.String,
})
export type PassthroughNode = typeof PassthroughNode.Type

export interface Command {
  /** The command's name (the root command: the CLI's `bin`). */
  readonly name: string
  /** From the root, root excluded: `["daemons", "start"]`; `[]` for the root. */
  readonly path: ReadonlyArray<string>
  readonly aliases: ReadonlyArray<string>
  readonly help?: string | undefined
  readonly long_help?: string | undefined
  readonly hide: boolean
  /** Its own flags and the globals it inherits (global ones marked `global`). */
  readonly flags: ReadonlyArray<Flag>
  readonly args: ReadonlyArray<Arg>
  /** Effective outputs, after inheritance (refined, hidden ones removed), in declaration order. */
  readonly outputs: ReadonlyArray<Output>
  /** The effective command-level `select` flag (its canonical `--name`), if any. */
  readonly select?: string | undefined
  /** Effective exit codes, folded by number, the root's order first. */
  readonly exit_codes: ReadonlyArray<ExitCode>
  readonly examples: ReadonlyArray<{
    readonly code: string
    readonly header?: string | undefined
    readonly help?: string | undefined
  }>
  readonly subcommands: ReadonlyArray<Command>
  /** Nodes of the usage format kept as they were (`complete`, `mount`, ...). */
  readonly passthrough: ReadonlyArray<PassthroughNode>
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
  examples: Schema.Array(
    Schema.Struct({
      code: Schema.String,
      header: Schema.optional(Schema.String),
      help: Schema.optional(Schema.String),
    }),
  ),
  subcommands: Schema.Array(Schema.suspend((): Schema.Schema<Command> => CommandSchema)),
  passthrough: Schema.Array(PassthroughNode),
})

/** A whole resolved spec. */
export const Spec = Schema.Struct({
  name: Schema.optional(Schema.String),
  bin: Schema.String,
  version: Schema.optional(Schema.String),
  about: Schema.optional(Schema.String),
  long_about: Schema.optional(Schema.String),
  author: Schema.optional(Schema.String),
  license: Schema.optional(Schema.String),
  /** The root command; its `path` is `[]`. */
  root: CommandSchema,
  /** Every file read: the spec, its includes and schema files (absolute paths, in read order). */
  sources: Schema.Array(Schema.String),
  /** Top-level nodes of the usage format kept as they were. */
  passthrough: Schema.Array(PassthroughNode),
})
export type Spec = typeof Spec.Type
