import { Schema } from "effect"
import { allCommands, commandLine } from "../../usage/consume/commands.js"
import { ExitCode, Framing, Selector, type Spec } from "../../usage/model.js"
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

export const ResolvedCommand = Schema.Struct({
  help: NullableString,
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
  /** Every file read: the spec, its includes and schema files. */
  sources: Schema.Array(Schema.String),
}).annotations({ identifier: "ResolveOutput" })
export type ResolveOutput = typeof ResolveOutput.Type

const orNull = <A>(a: A | undefined): A | null => a ?? null

export const resolveOutput = (spec: Spec): ResolveOutput => {
  const commands: Record<string, typeof ResolvedCommand.Type> = {}
  for (const c of allCommands(spec)) {
    const flag = c.select === undefined ? undefined : c.flags.find((f) => canonicalFlagName(f) === c.select)
    commands[commandLine(spec, c)] = {
      help: orNull(c.help),
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
    sources: spec.sources,
  }
}
