import { formatValue, kdlName } from "./kdl/format.js"
import { quoted } from "./kdlText.js"
import type { Choice, Command, Complete, Flag, Output, Spec } from "./model.js"
import { canonicalFlagName } from "./usageString.js"
import {
  keptProps,
  presentFlag,
  props,
  withChildren,
  writeArg,
  writeComplete,
  writeConfig,
  writeFlag,
  writeOutput,
} from "./writeNodes.js"

/**
 * Writes a resolved `Spec` back as KDL 2 (2-space indent). Includes are flattened, flagsets
 * expanded and schema files inlined, so the result is self-contained. Inheritance is written
 * back as the smallest declarations that resolve to the same model: each command states only
 * what differs from its parent (changed or new outputs, `hide=#true` for removed ones, changed
 * or new exit codes, a different `select`, its own completers), and inherited global flags are
 * not repeated unless the command restates one where it stands. Parsing the result gives the
 * same `Spec`, except `sources` and `schema_file`.
 */
export const writeSpec = (spec: Spec): string => {
  const root = spec.root
  const top: Array<readonly [string, string | undefined]> = [
    ["name", spec.name],
    ["bin", spec.bin === "" ? undefined : spec.bin],
    ["version", spec.version],
    ["long_version", spec.long_version],
    ["about", spec.about],
    ["long_about", spec.long_about],
    ["author", spec.author],
    ["license", spec.license],
    ["usage", spec.usage],
    ["repository", spec.repository],
    ["source_code_link_template", spec.source_code_link_template],
    ["min_usage_version", spec.min_usage_version],
    ["before_help", root.before_help],
    ["before_long_help", root.before_long_help],
    ["after_help", root.after_help],
    ["after_long_help", root.after_long_help],
    ["deprecated", root.deprecated],
  ]
  const out: Array<string> = []
  for (const [key, value] of top) if (value !== undefined) out.push(`${key} ${quoted(value)}`)
  if (root.subcommand_required === true) out.push("subcommand_required #true")
  for (const [key, value] of spec.kept?.props ?? []) out.push(`${kdlName(key)} ${formatValue(value)}`)
  for (const node of spec.kept?.nodes ?? []) out.push(node)
  if (spec.config !== undefined) out.push(...writeConfig(spec.config))
  for (const p of spec.passthrough) out.push(...p.kdl.split("\n"))
  out.push(...commandBody(root, undefined, [], [], ""))
  return `${out.join("\n")}\n`
}

const sameFlag = (a: Flag, b: Flag): boolean =>
  a.long.some((l) => b.long.includes(l)) || a.short.some((s) => b.short.includes(s))

/** A flag as declared: without the choices a `select` filled in this command. */
const asDeclared = (flag: Flag, cmd: Command): Flag =>
  derivedChoices(flag, cmd) && flag.arg !== undefined
    ? { ...flag, arg: { ...flag.arg, choices: undefined } }
    : flag

/**
 * The flags a command declares itself. The resolver made its list its own flags, then the
 * inherited globals it does not shadow (`globals`); the shortest prefix that explains the rest
 * is what it declared.
 */
const ownFlags = (cmd: Command, globals: ReadonlyArray<Flag>): ReadonlyArray<Flag> => {
  const flags = cmd.flags
  for (let i = 0; i <= flags.length; i++) {
    const own = flags.slice(0, i)
    const rest = globals.filter((g) => !own.some((o) => sameFlag(o, g)))
    const tail = flags.slice(i)
    if (
      rest.length === tail.length &&
      rest.every((g, j) => JSON.stringify(g) === JSON.stringify(asDeclared(tail[j]!, cmd)))
    )
      return own
  }
  return flags
}

/** The global flags a command passes on: its ancestors' it does not shadow, then its own. */
const passedOn = (own: ReadonlyArray<Flag>, globals: ReadonlyArray<Flag>): ReadonlyArray<Flag> => [
  ...globals.filter((g) => !own.some((o) => sameFlag(o, g))),
  ...own.filter((f) => f.global),
]

const commandBody = (
  cmd: Command,
  parent: Command | undefined,
  globals: ReadonlyArray<Flag>,
  specComplete: ReadonlyArray<Complete>,
  ind: string,
): Array<string> => {
  const out: Array<string> = []
  if (cmd.aliases.length > 0) out.push(`${ind}alias ${cmd.aliases.map(quoted).join(" ")}`)
  if (cmd.hidden_aliases !== undefined)
    out.push(`${ind}alias ${cmd.hidden_aliases.map(quoted).join(" ")} hide=#true`)
  const own = ownFlags(cmd, globals)
  for (const flag of own) out.push(...writeFlag(flag, derivedChoices(flag, cmd), ind))
  for (const arg of cmd.args) out.push(...writeArg(arg, ind))
  // Completers come from the spec's top level (the root's) and the command's own.
  for (const c of cmd.complete ?? [])
    if (!specComplete.some((i) => sameComplete(i, c))) out.push(writeComplete(c, ind))
  for (const m of cmd.mounts ?? [])
    out.push(
      `${ind}mount run=${quoted(m.run)}${m.overrides_default === true ? " overrides_default=#true" : ""}`,
    )
  const inherited = parent?.outputs ?? []
  for (const p of inherited) {
    if (!cmd.outputs.some((o) => o.name === p.name)) out.push(`${ind}output ${quoted(p.name)} hide=#true`)
  }
  for (const o of cmd.outputs) {
    const p = inherited.find((x) => x.name === o.name)
    if (p === undefined || !sameDeclaration(p, o)) out.push(...writeOutput(o, ind))
  }
  if (cmd.select !== undefined && cmd.select !== parent?.select)
    out.push(`${ind}select ${quoted(cmd.select)}`)
  for (const e of cmd.exit_codes) {
    const same = parent?.exit_codes.some((p) => p.code === e.code && p.description === e.description)
    if (same !== true) out.push(`${ind}exit_code ${e.code} ${quoted(e.description)}`)
  }
  for (const ex of cmd.examples) {
    out.push(
      `${ind}example ${quoted(ex.code)}${props([
        ["header", ex.header],
        ["help", ex.help],
        ["lang", ex.lang],
      ])}`,
    )
  }
  for (const p of cmd.passthrough) out.push(...p.kdl.split("\n").map((l) => (l === "" ? l : ind + l)))
  const next = passedOn(
    own.map((f) => asDeclared(f, cmd)),
    globals,
  )
  const nextComplete = parent === undefined ? (cmd.complete ?? []) : specComplete
  for (const sub of cmd.subcommands) {
    const head = `${ind}cmd ${quoted(sub.name)}${props([
      ["help", sub.help],
      ["long_help", sub.long_help],
      ["hide", sub.hide],
      ["subcommand_required", sub.subcommand_required],
      ["effect", sub.effect],
      ["deprecated", sub.deprecated],
      ["before_help", sub.before_help],
      ["before_long_help", sub.before_long_help],
      ["after_help", sub.after_help],
      ["after_long_help", sub.after_long_help],
      ["help_heading", sub.help_heading],
    ])}${keptProps(sub.kept)}`
    out.push(...withChildren(head, commandBody(sub, cmd, next, nextComplete, `${ind}  `), ind))
  }
  return out
}

const sameComplete = (a: Complete, b: Complete): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Choices a `select` would fill again from the outputs: not written, so each command gets its own. */
const derivedChoices = (flag: Flag, cmd: Command): boolean => {
  const choices = flag.arg?.choices
  return choices !== undefined && cmd.select === canonicalFlagName(flag) && derivable(choices, cmd.outputs)
}

const derivable = (choices: ReadonlyArray<Choice>, outputs: ReadonlyArray<Output>): boolean =>
  choices.length === outputs.length &&
  choices.every(
    (c, i) =>
      c.value === outputs[i]?.name &&
      c.help === outputs[i]?.help &&
      c.hide === undefined &&
      c.aliases === undefined,
  )

/** Whether a command's output is the inherited one unchanged (selectors a `select` derives aside). */
const sameDeclaration = (a: Output, b: Output): boolean =>
  a.media_type === b.media_type &&
  a.framing === b.framing &&
  a.help === b.help &&
  a.default === b.default &&
  a.schema === b.schema &&
  presentFlag(a) === presentFlag(b)
