/**
 * The words of the usage language (jdx/usage): for each node kind, the properties it takes and
 * the attributes it also takes as one-value child nodes (`long_help "..."` as well as
 * `long_help="..."`). Read from usage's parser, `lib/src/spec/{mod,cmd,flag,arg}.rs`, and its
 * reference docs, `docs/spec/reference/*.md`. An attribute marked `keep` is accepted, checked
 * for its type and written back by `spec fmt`, but supervisor does not act on it; docs/usage-spec.md
 * lists which. A word in no table is an error naming the node, as usage reports it.
 */

export type AttrKind =
  | "string"
  | "bool"
  /** A whole number, 0 or more (`var_min=1`). */
  | "usize"
  /** A string, number or boolean, kept as its text (`default=4`, `default=#true`). */
  | "scalar"
  /** `deprecated=#true` ("deprecated"), `#false` (not deprecated) or the reason. */
  | "bool_or_string"
  /** One string as a property, one or more as a child node (`conflicts "--a" "--b"`). */
  | "strings"
  | { readonly oneOf: ReadonlyArray<string> }

export interface AttrSpec {
  readonly kind: AttrKind
  /** Where it may be written: `prop` (`key=value`), `child` (`key value`) or `both` (the default). */
  readonly as?: "prop" | "child" | "both"
  /** Another spelling of `canonical` (`help_long` for `long_help`). */
  readonly canonical?: string
  /** Accepted and written back, not acted on. */
  readonly keep?: true
}

export type Vocabulary = Readonly<Record<string, AttrSpec>>

const str: AttrSpec = { kind: "string" }
const bool: AttrSpec = { kind: "bool" }
const keepStr: AttrSpec = { kind: "string", keep: true }
const keepBool: AttrSpec = { kind: "bool", keep: true }
const keepUsize: AttrSpec = { kind: "usize", keep: true }
const keepStrings: AttrSpec = { kind: "strings", keep: true }
const synonym = (canonical: string, kind: AttrKind = "string"): AttrSpec => ({ kind, canonical })

export const EFFECTS = ["read", "write", "destructive"] as const
const effect: AttrSpec = { kind: { oneOf: EFFECTS } }

/** Help texts every flag, arg and cmd takes. */
const HELP: Vocabulary = {
  help: str,
  long_help: str,
  help_long: synonym("long_help"),
  help_md: keepStr,
}

/** The presentation switches flags and args share (lib/src/spec/{flag,arg}.rs). */
const HIDE_DETAILS: Vocabulary = {
  hide_default_value: keepBool,
  hide_env: keepBool,
  hide_env_values: keepBool,
  hide_possible_values: keepBool,
  hide_short_help: keepBool,
  hide_long_help: keepBool,
}

/** lib/src/spec/flag.rs (`SpecFlag::parse`), docs/spec/reference/flag.md. */
export const FLAG: Vocabulary = {
  ...HELP,
  ...HIDE_DETAILS,
  required: bool,
  required_if: keepStrings,
  required_unless: keepStrings,
  required_unless_all: keepStrings,
  var: bool,
  var_min: keepUsize,
  var_max: keepUsize,
  hide: bool,
  deprecated: { kind: "bool_or_string" },
  deprecated_warn_at: keepStr,
  deprecated_remove_at: keepStr,
  global: bool,
  count: bool,
  action: { kind: { oneOf: ["set", "help", "help_short", "help_long", "help_all", "version"] }, keep: true },
  allow_hyphen_values: keepBool,
  allow_negative_numbers: keepBool,
  value_terminator: keepStr,
  default: { kind: "scalar" },
  negate: str,
  overrides: { kind: "strings" },
  conflicts: { kind: "strings" },
  requires: keepStrings,
  exclusive: bool,
  require_equals: keepBool,
  value_optional: keepBool,
  bool_value: keepBool,
  default_missing: keepStr,
  delimiter: keepStr,
  effect,
  env: str,
  env_fallback: keepStrings,
  deprecated_env: keepStrings,
  help_heading: keepStr,
  display_order: keepUsize,
  // Named by issue 17 as a newer usage attribute; not found in the usage sources read here, so
  // it is accepted with any value and kept.
  builtin: { kind: "scalar", keep: true },
}

/** lib/src/spec/arg.rs (`SpecArg::parse`), docs/spec/reference/arg.md (`parse`). */
export const ARG: Vocabulary = {
  ...HELP,
  ...HIDE_DETAILS,
  required: bool,
  double_dash: { kind: { oneOf: ["required", "optional", "automatic", "preserve"] } },
  var: bool,
  var_min: { kind: "usize" },
  var_max: { kind: "usize" },
  delimiter: keepStr,
  allow_negative_numbers: keepBool,
  value_terminator: keepStr,
  hide: bool,
  conflicts: keepStrings,
  requires: keepStrings,
  required_if: keepStrings,
  required_unless: keepStrings,
  required_unless_all: keepStrings,
  default: { kind: "scalar" },
  effect,
  env: str,
  validate: keepStr,
  validate_error: keepStr,
  help_heading: keepStr,
  parse: keepStr,
  // docs/spec/reference/sigils.md.
  sigil: keepStr,
  value_names: { kind: "strings", as: "child", keep: true },
}

/** The switches a command and the spec's top level share (lib/src/spec/{cmd,mod}.rs). */
const COMMAND_SWITCHES: Vocabulary = {
  subcommand_required: bool,
  external_subcommand: keepBool,
  arg_required_else_help: keepBool,
  dont_delimit_trailing_values: keepBool,
  args_override_self: keepBool,
  subcommand_negates_reqs: keepBool,
  args_conflicts_with_subcommands: keepBool,
  subcommand_precedence_over_arg: keepBool,
  unknown_flags: keepStr,
  disable_help_flag: keepBool,
  disable_help_subcommand: keepBool,
  disable_version_flag: keepBool,
  allow_missing_positional: keepBool,
  subcommand_help_heading: keepStr,
  subcommand_value_name: keepStr,
  next_line_help: keepBool,
  flatten_help: keepBool,
  term_width: keepUsize,
  max_term_width: keepUsize,
  deprecated: { kind: "bool_or_string" },
  deprecated_warn_at: keepStr,
  deprecated_remove_at: keepStr,
  before_help: str,
  before_long_help: str,
  before_help_long: synonym("before_long_help"),
  before_help_md: keepStr,
  after_help: str,
  after_long_help: str,
  after_help_long: synonym("after_long_help"),
  after_help_md: keepStr,
}

/** lib/src/spec/cmd.rs (`SpecCommand::parse`), docs/spec/reference/cmd.md. */
export const CMD: Vocabulary = {
  ...HELP,
  ...COMMAND_SWITCHES,
  hide: bool,
  // the heading of the parent's help the command is listed under (usage-lib's SpecCommand)
  help_heading: str,
  effect,
  restart_token: keepStr,
  // where the command is listed among its parent's subcommands (cmd.rs)
  display_order: keepUsize,
}

/**
 * The top level (lib/src/spec/mod.rs, docs/spec/reference/index.md): one-value nodes only. The
 * metadata (`name`, `bin`, ...) is read into the spec; the switches apply to the root command.
 */
export const TOP: Vocabulary = {
  name: str,
  bin: str,
  version: str,
  long_version: str,
  author: str,
  license: str,
  about: str,
  long_about: str,
  about_long: synonym("long_about"),
  about_md: keepStr,
  usage: str,
  repository: str,
  source_code_link_template: str,
  min_usage_version: str,
  help_template: keepStr,
  disable_help: keepBool,
  default_subcommand: keepStr,
  multicall: keepBool,
  ...COMMAND_SWITCHES,
}

/** The output declarations (docs/spec/reference/output.md, lib/src/spec/output.rs). */
export const OUTPUT: Vocabulary = {
  media_type: { kind: "string", as: "prop" },
  framing: { kind: { oneOf: ["text", "json", "jsonl"] }, as: "prop" },
  help: str,
  default: { kind: "bool", as: "prop" },
  hide: { kind: "bool", as: "prop" },
  select: { kind: "string", as: "prop" },
  schema: { kind: "string", as: "prop" },
}

/** `example "code" header="..." help="..." lang="sh"` (lib/src/spec/cmd.rs). */
export const EXAMPLE: Vocabulary = {
  header: { kind: "string", as: "prop" },
  help: { kind: "string", as: "prop" },
  lang: { kind: "string", as: "prop" },
}

/** `complete "name" run=... | type=... | delegate=... descriptions=#true` (lib/src/spec/complete.rs). */
export const COMPLETE: Vocabulary = {
  run: { kind: "string", as: "prop" },
  type: { kind: "string", as: "prop" },
  delegate: { kind: "string", as: "prop" },
  descriptions: { kind: "bool", as: "prop" },
}

const propStr: AttrSpec = { kind: "string", as: "prop" }
const keepPropStr: AttrSpec = { kind: "string", as: "prop", keep: true }

/**
 * `prop "key" ...` inside `config` (lib/src/spec/config.rs, `SpecConfigProp::parse`); its child
 * nodes are read in decodeConfig.ts. `default` is read there too (a number must fit 64 bits).
 */
export const CONFIG_PROP: Vocabulary = {
  default: { kind: "scalar", as: "prop" },
  default_note: propStr,
  data_type: propStr,
  type: propStr,
  env: propStr,
  help: propStr,
  long_help: propStr,
  deprecated: propStr,
  optional: { kind: "bool", as: "prop", keep: true },
  help_heading: keepPropStr,
  merge: { kind: { oneOf: ["replace", "union", "deep"] }, as: "prop", keep: true },
  scope: { kind: { oneOf: ["any", "global", "env"] }, as: "prop", keep: true },
  deprecated_warn_at: keepPropStr,
  deprecated_remove_at: keepPropStr,
  renamed_to: keepPropStr,
  hide: { kind: "bool", as: "prop", keep: true },
  since: keepPropStr,
  parse: keepPropStr,
  writes_to: keepPropStr,
}

/** `file "path" findup=#true scope="global" format="ini"` inside `config` (config.rs). */
export const CONFIG_FILE: Vocabulary = {
  findup: { kind: "bool", as: "prop" },
  scope: { kind: { oneOf: ["project", "global", "system"] }, as: "prop" },
  format: { kind: "string", as: "prop" },
}
