import type { CommandDecl, ExitCodeDecl, OutputDecl, SelectDecl } from "./decl.js"
import type { Problems } from "./errors.js"
import type { Choice, Command, Complete, ExitCode, Flag, Output, Selector } from "./model.js"
import { canonicalFlagName, flagHasName } from "./usageString.js"

/**
 * Folds the declared tree into the resolved model, following the Inheritance section of the
 * output declarations spec:
 *
 * 1. top-level outputs, `select` and exit codes apply to the whole CLI;
 * 2. a command redeclaring an output name replaces it whole (in the inherited position), and
 *    `hide=#true` removes it; new names are appended. As in usage (lib/src/spec/output.rs), this
 *    folds: an output declared twice in one command is the later one, and a hidden output that
 *    was not inherited is simply not there;
 * 3. exit codes fold by number the same way (lib/src/spec/exit_code.rs): a redeclared number
 *    keeps its position with the new description, new numbers are appended;
 * 4. a `select` fills its value flag's choices from the command's own effective outputs, so a
 *    global selector flag gets different choices in each command. An inherited `select`, or an
 *    inherited `select="--json"`, whose flag does not reach a subcommand is dropped there.
 *
 * The checks that need a whole command (one default, one select, the flag a select names, the
 * choices it declares) run here too, once per declaration.
 */

interface Inherited {
  readonly outputs: ReadonlyArray<OutputDecl>
  readonly select?: SelectDecl | undefined
  readonly exitCodes: ReadonlyArray<ExitCode>
  /** Global flags of the ancestors, as declared (choices not filled). */
  readonly globals: ReadonlyArray<Flag>
  /** The spec's (top-level) completers: every command has them, its own win by name. */
  readonly complete: ReadonlyArray<Complete>
}

export const resolveCommands = (root: CommandDecl, bin: string, problems: Problems): Command =>
  resolveCommand(
    root,
    [],
    bin,
    { outputs: [], exitCodes: [], globals: [], complete: root.complete },
    problems,
    new Set(),
  )

const sameFlag = (a: Flag, b: Flag): boolean =>
  a.long.some((l) => b.long.includes(l)) || a.short.some((s) => b.short.includes(s))

const listFlags = (flags: ReadonlyArray<Flag>): string =>
  flags.length === 0 ? "this command has no flags" : `flags: ${flags.map(canonicalFlagName).join(", ")}`

const quoteAll = (names: ReadonlyArray<string>): string => names.map((n) => `"${n}"`).join(", ")

const resolveCommand = (
  decl: CommandDecl,
  path: ReadonlyArray<string>,
  bin: string,
  inh: Inherited,
  problems: Problems,
  reported: Set<string>,
): Command => {
  const where = [bin, ...path]
  // An inherited declaration is checked again in every command that inherits it; the same
  // problem about the same node is reported once, at the first (outermost) command.
  const report = (d: { file: string; line?: number | undefined; label: string }, message: string) => {
    const key = `${d.file}:${d.line}:${d.label}:${message}`
    if (reported.has(key)) return
    reported.add(key)
    problems.add(d, where, d.label, message)
  }

  const ownFlags = decl.flags.map((f) => f.flag)
  const flags: Array<Flag> = [
    ...ownFlags,
    ...inh.globals.filter((g) => !ownFlags.some((o) => sameFlag(o, g))),
  ]

  // Outputs: replace in place (a later declaration too), new ones appended, then hidden ones go.
  const folded: Array<OutputDecl> = [...inh.outputs]
  for (const o of decl.outputs) {
    const i = folded.findIndex((x) => x.name === o.name)
    if (i >= 0) folded[i] = o
    else folded.push(o)
  }
  const outputs = folded.filter((o) => !o.hide)
  const defaults = outputs.filter((o) => o.default)
  // Only when this command adds a default: otherwise its parent had the same ones and said so.
  const blame = defaults.find((d) => decl.outputs.includes(d))
  if (defaults.length > 1 && blame !== undefined) {
    report(
      blame,
      `more than one default output (${quoteAll(defaults.map((d) => d.name))}); mark exactly one default=#true`,
    )
  }

  // Select: at most one node; the effective one is this command's or the inherited one.
  for (const extra of decl.selects.slice(1)) {
    const first = decl.selects[0]!
    report(extra, `only one select per command; this command already has select "${first.flag}"`)
  }
  // An inherited select goes only as far as its flag does; one written here must name a flag.
  const own = decl.selects[0]
  const select =
    own ??
    (inh.select !== undefined && flags.some((f) => flagHasName(f, inh.select!.flag)) ? inh.select : undefined)
  let selectFlag: string | undefined
  if (select !== undefined && outputs.length > 0) {
    const i = flags.findIndex((f) => flagHasName(f, select.flag))
    const flag = flags[i]
    if (flag === undefined) {
      report(select, `select names ${select.flag}, which is not a flag of this command (${listFlags(flags)})`)
    } else if (flag.arg === undefined) {
      report(
        select,
        `select names ${select.flag}, a flag that takes no value; for a boolean flag put select="${select.flag}" on the output`,
      )
    } else {
      selectFlag = canonicalFlagName(flag)
      flags[i] = { ...flag, arg: { ...flag.arg, choices: fillChoices(flag, outputs, select, report) } }
    }
  }

  const selectorOf = (o: OutputDecl): Selector | null => {
    if (o.select !== undefined) {
      const flag = flags.find((f) => flagHasName(f, o.select!))
      if (flag === undefined) {
        // Inherited: the flag does not reach this command, so nothing here selects by it.
        if (decl.outputs.includes(o))
          report(o, `select="${o.select}" is not a flag of this command (${listFlags(flags)})`)
      } else if (flag.arg !== undefined) {
        report(
          o,
          `select="${o.select}" names a flag that takes a value; use a command-level select "${o.select}" for a value flag`,
        )
      } else {
        // An explicit select= is the more specific way to ask for this output, so it is the one
        // the model keeps; a command-level value select still lists it among its choices.
        return { kind: "present", flag: canonicalFlagName(flag) }
      }
    }
    return selectFlag === undefined ? null : { kind: "value", flag: selectFlag, value: o.name }
  }

  const exitCodes = foldExitCodes(inh.exitCodes, decl.exit_codes)
  const globals = [
    ...inh.globals.filter((g) => !ownFlags.some((o) => sameFlag(o, g))),
    ...ownFlags.filter((f) => f.global),
  ]
  const next: Inherited = { outputs, select, exitCodes, globals, complete: inh.complete }
  const complete = [
    ...inh.complete.filter((c) => !decl.complete.some((d) => d.name === c.name)),
    ...decl.complete,
  ]
  return {
    name: decl.name,
    path,
    aliases: decl.aliases,
    help: decl.help,
    long_help: decl.long_help,
    hide: decl.hide,
    effect: decl.effect,
    subcommand_required: decl.subcommand_required,
    deprecated: decl.deprecated,
    before_help: decl.before_help,
    before_long_help: decl.before_long_help,
    after_help: decl.after_help,
    after_long_help: decl.after_long_help,
    help_heading: decl.help_heading,
    hidden_aliases: decl.hidden_aliases.length === 0 ? undefined : decl.hidden_aliases,
    complete: complete.length === 0 ? undefined : complete,
    mounts: decl.mounts.length === 0 ? undefined : decl.mounts,
    kept: decl.kept,
    flags,
    args: decl.args,
    outputs: outputs.map((o) => toOutput(o, selectorOf(o))),
    select: selectFlag,
    exit_codes: exitCodes,
    examples: decl.examples,
    subcommands: decl.subcommands.map((c) =>
      resolveCommand(c, [...path, c.name], bin, next, problems, reported),
    ),
    passthrough: decl.passthrough,
  }
}

/**
 * The choices a `select` gives its flag: one per effective output, in output order. A choice's
 * help is the one the flag declared, else the output's. Declared choices must name exactly the
 * effective outputs (they document the same thing twice; a mismatch is a stale spec).
 */
const fillChoices = (
  flag: Flag,
  outputs: ReadonlyArray<OutputDecl>,
  select: SelectDecl,
  report: (d: SelectDecl, message: string) => void,
): Array<Choice> => {
  const declared = flag.arg?.choices
  if (declared !== undefined) {
    const names = outputs.map((o) => o.name)
    const noOutput = declared.map((c) => c.value).filter((v) => !names.includes(v))
    const noChoice = names.filter((n) => !declared.some((c) => c.value === n))
    if (noOutput.length > 0 || noChoice.length > 0) {
      const parts = [
        ...(noOutput.length > 0 ? [`no output for choice ${quoteAll(noOutput)}`] : []),
        ...(noChoice.length > 0 ? [`no choice for output ${quoteAll(noChoice)}`] : []),
      ]
      report(
        select,
        `the choices of ${canonicalFlagName(flag)} disagree with the outputs of this command: ${parts.join("; ")}`,
      )
    }
  }
  return outputs.map((o) => {
    const help = declared?.find((c) => c.value === o.name)?.help ?? o.help
    return help === undefined ? { value: o.name } : { value: o.name, help }
  })
}

const foldExitCodes = (
  inherited: ReadonlyArray<ExitCode>,
  declared: ReadonlyArray<ExitCodeDecl>,
): Array<ExitCode> => {
  const codes = [...inherited]
  for (const e of declared) {
    const i = codes.findIndex((c) => c.code === e.code)
    const code = { code: e.code, description: e.description }
    if (i >= 0) codes[i] = code
    else codes.push(code)
  }
  return codes
}

const toOutput = (o: OutputDecl, selector: Selector | null): Output => ({
  name: o.name,
  media_type: o.media_type,
  framing: o.framing,
  help: o.help,
  default: o.default,
  selector,
  schema: o.schema,
  schema_file: o.schema_file,
})
