import { JSONSchema } from "effect"
import type { Command, ExitCode, Flag, Output, Spec } from "../../usage/model.js"
import { writeSpec } from "../../usage/writer.js"
import { type AnyCliCommand, type CliTree, readCliTree } from "./effectCli.js"
import { CLI_EXTRAS, type CommandExtras, type Extras, type OutputEntry } from "./outputs.js"

/**
 * The usage spec of an `@effect/cli` program: its command tree (`effectCli.ts`) plus, per command
 * path, the outputs and exit codes of `outputs.ts`. The result is the resolved model, built the
 * way the resolver folds inheritance (outputs replaced by name or hidden, exit codes folded by
 * number, global flags copied down), so `writeSpec` turns it into the smallest KDL that parses
 * back to the same model; `test/cli/usageSpec/cliSpec.test.ts` holds it to that.
 */

export type { Extras } from "./outputs.js"

export interface CliSpecOptions {
  readonly version?: string | undefined
  readonly extras?: Extras | undefined
}

/**
 * The options @effect/cli adds to every program (`Command.run`): `--help` works on every command,
 * `--version` on the program. `--completions`, `--log-level` and `--wizard` are left out: they
 * are the library's, not this CLI's, and `supervisor spec complete` replaces the first.
 */
const HELP: Flag = {
  usage: "-h --help",
  long: ["help"],
  short: ["h"],
  help: "show the help of a command",
  global: true,
  hide: false,
  variadic: false,
}
const VERSION: Flag = {
  ...HELP,
  usage: "--version",
  long: ["version"],
  short: [],
  help: "print the version",
  global: false,
}

const DEFAULT_EXTRAS: Extras = CLI_EXTRAS

export const cliSpec = (command: AnyCliCommand, options: CliSpecOptions = {}): Spec => {
  const tree = readCliTree(command)
  const extras = options.extras ?? DEFAULT_EXTRAS
  const root = buildCommand(tree, [], extras.root, undefined, extras)
  return {
    name: tree.name,
    bin: tree.name,
    version: options.version,
    about: tree.help,
    root: { ...root, help: undefined, flags: [...root.flags, HELP, VERSION, ...(extras.globals ?? [])] },
    sources: [],
    passthrough: [],
  }
}

/** The KDL text of the program's usage spec (`supervisor usage`). */
export const cliSpecKdl = (command: AnyCliCommand, options: CliSpecOptions = {}): string =>
  writeSpec(cliSpec(command, options))

/** Paths in the extras that name no command: a stale table (the tests fail on any). */
export const unknownExtraPaths = (command: AnyCliCommand, extras: Extras = DEFAULT_EXTRAS): Array<string> => {
  const known = new Set<string>()
  const visit = (t: CliTree, path: ReadonlyArray<string>): void => {
    known.add(path.join(" "))
    for (const sub of t.subcommands) visit(sub, [...path, sub.name])
  }
  visit(readCliTree(command), [])
  return Object.keys(extras.commands).filter((p) => !known.has(p))
}

const buildCommand = (
  tree: CliTree,
  path: ReadonlyArray<string>,
  own: CommandExtras | undefined,
  parent: Command | undefined,
  extras: Extras,
): Command => {
  const optional = new Set(extras.optionalValues?.[path.join(" ")] ?? [])
  const flags = tree.flags.map((f) =>
    f.arg !== undefined && f.long.some((l) => optional.has(l))
      ? {
          ...f,
          usage: f.usage.replace(`<${f.arg.name}>`, `[${f.arg.name}]`),
          arg: { ...f.arg, required: false },
        }
      : f,
  )
  const globals = (parent?.flags ?? []).filter((g) => g.global)
  const command: Command = {
    name: tree.name,
    path,
    aliases: extras.aliases?.[path.join(" ")] ?? [],
    help: tree.help,
    long_help: own?.long_help,
    hide: extras.hidden?.includes(path.join(" ")) === true,
    help_heading: extras.headings?.[path.join(" ")],
    subcommand_required:
      extras.runsAlone !== undefined &&
      path.length > 0 &&
      tree.subcommands.length > 0 &&
      !extras.runsAlone.includes(path.join(" "))
        ? true
        : undefined,
    flags: [...flags, ...globals],
    args: tree.args,
    outputs: foldOutputs(parent?.outputs ?? [], own),
    select: undefined,
    exit_codes: foldExitCodes(parent?.exit_codes ?? [], own?.exit_codes ?? []),
    examples: [],
    subcommands: [],
    passthrough: [],
    complete: extras.complete === undefined || extras.complete.length === 0 ? undefined : extras.complete,
  }
  const withGlobals =
    parent === undefined
      ? { ...command, flags: [...command.flags, HELP, ...(extras.globals ?? [])] }
      : command
  return {
    ...command,
    subcommands: tree.subcommands.map((sub) => {
      const subPath = [...path, sub.name]
      return buildCommand(sub, subPath, extras.commands[subPath.join(" ")], withGlobals, extras)
    }),
  }
}

/** As the resolver does: a redeclared name replaces in place, hidden ones go, new ones are appended. */
const foldOutputs = (inherited: ReadonlyArray<Output>, own: CommandExtras | undefined): Array<Output> => {
  const outputs = inherited.filter((o) => !(own?.hide ?? []).includes(o.name))
  for (const entry of own?.outputs ?? []) {
    const output = toOutput(entry)
    const i = outputs.findIndex((o) => o.name === entry.name)
    if (i >= 0) outputs[i] = output
    else outputs.push(output)
  }
  return outputs
}

const foldExitCodes = (inherited: ReadonlyArray<ExitCode>, own: ReadonlyArray<ExitCode>): Array<ExitCode> => {
  const codes = [...inherited]
  for (const e of own) {
    const i = codes.findIndex((c) => c.code === e.code)
    if (i >= 0) codes[i] = e
    else codes.push(e)
  }
  return codes
}

const toOutput = (entry: OutputEntry): Output => ({
  name: entry.name,
  media_type: entry.media_type,
  framing: entry.framing,
  help: entry.help,
  default: entry.default === true,
  selector: entry.select === undefined ? null : { kind: "present", flag: entry.select },
  schema: entry.schema === undefined ? undefined : JSON.stringify(JSONSchema.make(entry.schema), null, 2),
  schema_file: undefined,
})
