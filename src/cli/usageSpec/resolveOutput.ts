import { Schema } from "effect"
import { allCommands, commandLine } from "../../usage/consume/commands.js"
import { ConfigDescription, describeConfig } from "../../usage/consume/mcpResults.js"
import { DoubleDash, Effect, ExitCode, type Flag, Framing, Selector, type Spec } from "../../usage/model.js"
import { canonicalFlagName } from "../../usage/usageString.js"

/**
 * The `supervisor spec resolve --json` document: what inheritance made of each command's output
 * declarations. Keyed by the words that run the command (`"supervisor daemons start"`; the
 * program itself under its `bin`), so a build script can look one up without walking a tree.
 * Absent values are `null`, never missing keys. Declared as a Schema so the CLI's own spec can
 * publish its JSON Schema (`supervisor usage`), from the same value the command encodes with.
 */

const NullableString = Schema.NullOr(Schema.String)

export const ResolvedOutput = Schema.Struct({
  name: Schema.String,
  framing: Framing,
  media_type: NullableString,
  help: NullableString,
  default: Schema.Boolean,
  /** How to ask for it; null when nothing selects it. */
  selector: Schema.NullOr(Selector),
  /** The schema text, verbatim. */
  schema: NullableString,
  /** The file it was read from (absolute), when it came from a file. */
  schema_file: NullableString,
})

const ResolvedChoices = Schema.NullOr(
  Schema.Array(Schema.Struct({ value: Schema.String, help: NullableString })),
)

/** A flag of a command as resolved: its own, from `use`d flagsets, or an inherited global. */
export const ResolvedFlag = Schema.Struct({
  usage: Schema.String,
  /** Every name it answers to, with dashes (hidden aliases too). */
  names: Schema.Array(Schema.String),
  help: NullableString,
  global: Schema.Boolean,
  hide: Schema.Boolean,
  repeatable: Schema.Boolean,
  count: Schema.Boolean,
  required: Schema.Boolean,
  /** The value it takes, or null for a boolean flag. */
  value: Schema.NullOr(
    Schema.Struct({ name: Schema.String, required: Schema.Boolean, choices: ResolvedChoices }),
  ),
  default: NullableString,
  negate: NullableString,
  env: NullableString,
  deprecated: NullableString,
})

export const ResolvedArg = Schema.Struct({
  usage: Schema.String,
  name: Schema.String,
  help: NullableString,
  required: Schema.Boolean,
  variadic: Schema.Boolean,
  hide: Schema.Boolean,
  choices: ResolvedChoices,
  default: NullableString,
  env: NullableString,
  double_dash: Schema.NullOr(DoubleDash),
})

export const ResolvedCommand = Schema.Struct({
  help: NullableString,
  aliases: Schema.Array(Schema.String),
  hide: Schema.Boolean,
  effect: Schema.NullOr(Effect),
  flags: Schema.Array(ResolvedFlag),
  args: Schema.Array(ResolvedArg),
  /** The completers in effect (the spec's and the command's own). */
  complete: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      run: NullableString,
      type: NullableString,
      delegate: NullableString,
      descriptions: Schema.Boolean,
    }),
  ),
  /** `mount run=...`: commands whose output adds subcommands at run time. */
  mounts: Schema.Array(Schema.String),
  /** Effective outputs, inherited ones included, in order. */
  outputs: Schema.Array(ResolvedOutput),
  /** The command-level `select` flag with the choices it was given, or null. */
  select: Schema.NullOr(
    Schema.Struct({
      flag: Schema.String,
      choices: Schema.Array(Schema.Struct({ value: Schema.String, help: NullableString })),
    }),
  ),
  /** Effective exit codes, folded by number. */
  exit_codes: Schema.Array(ExitCode),
})

export const ResolveOutput = Schema.Struct({
  name: NullableString,
  bin: Schema.String,
  version: NullableString,
  commands: Schema.Record({ key: Schema.String, value: ResolvedCommand }),
  config: Schema.NullOr(ConfigDescription),
  /** Every file read: the spec, its includes and schema files. */
  sources: Schema.Array(Schema.String),
}).annotations({ identifier: "ResolveOutput" })
export type ResolveOutput = typeof ResolveOutput.Type

const orNull = <A>(a: A | undefined): A | null => a ?? null

const choicesOf = (choices: ReadonlyArray<{ value: string; help?: string | undefined }> | undefined) =>
  choices === undefined ? null : choices.map((c) => ({ value: c.value, help: orNull(c.help) }))

const resolvedFlag = (f: Flag): typeof ResolvedFlag.Type => ({
  usage: f.usage,
  names: [...f.short.map((s) => `-${s}`), ...f.long.map((l) => `--${l}`)],
  help: orNull(f.help),
  global: f.global,
  hide: f.hide,
  repeatable: f.variadic,
  count: f.count === true,
  required: f.required === true,
  value:
    f.arg === undefined
      ? null
      : { name: f.arg.name, required: f.arg.required, choices: choicesOf(f.arg.choices) },
  default: orNull(f.default),
  negate: orNull(f.negate),
  env: orNull(f.env),
  deprecated: orNull(f.deprecated),
})

export const resolveOutput = (spec: Spec): ResolveOutput => {
  const commands: Record<string, typeof ResolvedCommand.Type> = {}
  for (const c of allCommands(spec)) {
    const flag = c.select === undefined ? undefined : c.flags.find((f) => canonicalFlagName(f) === c.select)
    commands[commandLine(spec, c)] = {
      help: orNull(c.help),
      aliases: c.aliases,
      hide: c.hide,
      effect: orNull(c.effect),
      flags: c.flags.map(resolvedFlag),
      args: c.args.map((a) => ({
        usage: a.usage,
        name: a.name,
        help: orNull(a.help),
        required: a.required,
        variadic: a.variadic,
        hide: a.hide === true,
        choices: choicesOf(a.choices),
        default: orNull(a.default),
        env: orNull(a.env),
        double_dash: orNull(a.double_dash),
      })),
      complete: (c.complete ?? []).map((x) => ({
        name: x.name,
        run: orNull(x.run),
        type: orNull(x.type),
        delegate: orNull(x.delegate),
        descriptions: x.descriptions,
      })),
      mounts: (c.mounts ?? []).map((m) => m.run),
      outputs: c.outputs.map((o) => ({
        name: o.name,
        framing: o.framing,
        media_type: orNull(o.media_type),
        help: orNull(o.help),
        default: o.default,
        selector: o.selector,
        schema: orNull(o.schema),
        schema_file: orNull(o.schema_file),
      })),
      select:
        c.select === undefined
          ? null
          : {
              flag: c.select,
              choices: (flag?.arg?.choices ?? []).map((ch) => ({ value: ch.value, help: orNull(ch.help) })),
            },
      exit_codes: c.exit_codes,
    }
  }
  return {
    name: orNull(spec.name),
    bin: spec.bin,
    version: orNull(spec.version),
    commands,
    config: spec.config === undefined ? null : describeConfig(spec.config),
    sources: spec.sources,
  }
}
