import type { Command, Spec } from "../model.js"
import { allCommands, commandLine, findSubcommand, usageLine, visibleCommands } from "./commands.js"
import { flagChoices, flagNames, valueName, visibleFlags } from "./flags.js"
import { type CommandDescription, type CommandSummary, describeConfig } from "./mcpResults.js"
import { parseSchema } from "./schema-text.js"

export type {
  ArgDescription,
  ChoiceDescription,
  CommandDescription,
  CommandSummary,
  FlagDescription,
  OutputDescription,
} from "./mcpResults.js"

/**
 * The MCP operations over a spec: an agent lists the commands, then describes one to learn how
 * to call it and what it will print. The results' schemas are in mcpResults.ts.
 */

export type DescribeResult =
  | { readonly ok: true; readonly command: CommandDescription }
  | {
      readonly ok: false
      /** Names the unknown word and the command it was looked up under. */
      readonly error: string
      /** Every visible command path, space-joined (`"daemons stop"`), to retry with. */
      readonly known: ReadonlyArray<string>
    }

/**
 * Describes the command at `path` (names or aliases; `[]` is the program itself). Hidden
 * commands can be described when named exactly — hiding keeps them out of listings, it does
 * not make them fail — but are not suggested in `known`.
 */
export const describeCommand = (spec: Spec, path: ReadonlyArray<string>): DescribeResult => {
  let command: Command = spec.root
  for (const word of path) {
    const next = findSubcommand(command, word)
    if (next === undefined) {
      const under = commandLine(spec, command)
      return {
        ok: false,
        error: `unknown command "${[spec.bin, ...path].join(" ")}": "${word}" is not a subcommand of "${under}"`,
        known: visibleCommands(spec)
          .filter((c) => c !== spec.root)
          .map((c) => c.path.join(" ")),
      }
    }
    command = next
  }
  return { ok: true, command: describe(spec, command) }
}

const describe = (spec: Spec, command: Command): CommandDescription => ({
  name: command.name,
  path: command.path,
  aliases: command.aliases,
  usage: usageLine(spec, command),
  help: command.help ?? null,
  long_help: command.long_help ?? null,
  flags: visibleFlags(command).map((flag) => {
    const choices = flagChoices(command, flag)
    return {
      names: flagNames(flag),
      help: flag.help ?? null,
      takes_value: flag.arg !== undefined,
      value_name: valueName(flag) ?? null,
      value_optional: flag.arg !== undefined && !flag.arg.required,
      choices: choices === undefined ? null : choices.map((c) => ({ value: c.value, help: c.help ?? null })),
      default: flag.default ?? null,
      global: flag.global,
      repeatable: flag.variadic || flag.count === true,
      required: flag.required === true,
      env: flag.env ?? null,
      negate: flag.negate ?? null,
      deprecated: flag.deprecated ?? null,
      effect: flag.effect ?? null,
    }
  }),
  args: command.args
    .filter((arg) => arg.hide !== true)
    .map((arg) => ({
      name: arg.name,
      usage: arg.usage,
      help: arg.help ?? null,
      required: arg.required,
      variadic: arg.variadic,
      choices:
        arg.choices === undefined
          ? null
          : arg.choices.filter((c) => c.hide !== true).map((c) => ({ value: c.value, help: c.help ?? null })),
      default: arg.default ?? null,
      env: arg.env ?? null,
      double_dash: arg.double_dash === "required" || arg.double_dash === "automatic" ? arg.double_dash : null,
    })),
  subcommands: command.subcommands.filter((c) => !c.hide).map((c) => c.name),
  outputs: command.outputs.map((o) => ({
    name: o.name,
    framing: o.framing,
    media_type: o.media_type ?? null,
    help: o.help ?? null,
    default: o.default,
    selector: o.selector,
    schema: o.schema === undefined ? null : (parseSchema(o.schema) ?? o.schema),
  })),
  exit_codes: command.exit_codes.map((e) => ({ code: e.code, description: e.description })),
  effect: command.effect ?? null,
  deprecated: command.deprecated ?? null,
  subcommand_required: command.subcommand_required === true,
  mounts: (command.mounts ?? []).map((m) => m.run),
  config: command === spec.root && spec.config !== undefined ? describeConfig(spec.config) : null,
})

/**
 * Every command, the program itself first, depth first. Hidden commands (and those under
 * them) are left out unless `includeHidden`, and then carry `hidden: true`.
 */
export const listCommands = (
  spec: Spec,
  options: { readonly includeHidden?: boolean } = {},
): ReadonlyArray<CommandSummary> => {
  const visible = new Set(visibleCommands(spec))
  const commands = options.includeHidden === true ? allCommands(spec) : [...visible]
  return commands.map((c) => {
    const summary = { path: c.path, help: c.help ?? null, effect: c.effect ?? null }
    return visible.has(c) ? summary : { ...summary, hidden: true as const }
  })
}
