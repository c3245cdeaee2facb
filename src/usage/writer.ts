import { Either } from "effect"
import { kdlProps, quoted, textLiteral } from "./kdlText.js"
import type { Choice, Command, Flag, Output, Spec } from "./model.js"
import { canonicalFlagName, formatValueUsage, parseFlagUsage, parseValueUsage } from "./usageString.js"

/**
 * Writes a resolved `Spec` back as KDL 2 (2-space indent). Schema files are inlined, so the
 * result is self-contained. Inheritance is written back as the smallest declarations that
 * resolve to the same model: each command states only what differs from its parent (changed or
 * new outputs, `hide=#true` for removed ones, changed or new exit codes, a different `select`),
 * and inherited global flags are not repeated. Parsing the result gives the same `Spec`, except
 * `sources` and `schema_file`.
 */
export const writeSpec = (spec: Spec): string => {
  const out: Array<string> = []
  const meta = [
    ["name", spec.name],
    ["bin", spec.bin],
    ["version", spec.version],
    ["about", spec.about],
    ["long_about", spec.long_about],
    ["author", spec.author],
    ["license", spec.license],
  ] as const
  for (const [key, value] of meta) if (value !== undefined) out.push(`${key} ${quoted(value)}`)
  for (const p of spec.passthrough) out.push(...p.kdl.split("\n"))
  out.push(...commandBody(spec.root, undefined, ""))
  return `${out.join("\n")}\n`
}

const commandBody = (cmd: Command, parent: Command | undefined, ind: string): Array<string> => {
  const out: Array<string> = []
  if (cmd.aliases.length > 0) out.push(`${ind}alias ${cmd.aliases.map(quoted).join(" ")}`)
  for (const flag of cmd.flags) {
    if (parent !== undefined && isInheritedGlobal(flag, parent)) continue
    out.push(...writeFlag(flag, cmd, ind))
  }
  for (const arg of cmd.args) {
    const usage = Either.getOrUndefined(parseValueUsage(arg.usage))
    const head = `${ind}arg ${quoted(arg.usage)}${kdlProps([
      ["help", arg.help],
      ["var", arg.variadic && usage?.variadic !== true],
    ])}`
    out.push(
      ...withChildren(head, arg.choices === undefined ? [] : writeChoices(arg.choices, `${ind}  `), ind),
    )
  }
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
      `${ind}example ${quoted(ex.code)}${kdlProps([
        ["header", ex.header],
        ["help", ex.help],
      ])}`,
    )
  }
  for (const p of cmd.passthrough) out.push(...p.kdl.split("\n").map((l) => (l === "" ? l : ind + l)))
  for (const sub of cmd.subcommands) {
    const head = `${ind}cmd ${quoted(sub.name)}${kdlProps([
      ["help", sub.help],
      ["long_help", sub.long_help],
      ["hide", sub.hide],
    ])}`
    out.push(...withChildren(head, commandBody(sub, cmd, `${ind}  `), ind))
  }
  return out
}

const withChildren = (head: string, children: ReadonlyArray<string>, ind: string): Array<string> =>
  children.length === 0 ? [head] : [`${head} {`, ...children, `${ind}}`]

const sameNames = (a: Flag, b: Flag): boolean =>
  a.long.join(" ") === b.long.join(" ") && a.short.join(" ") === b.short.join(" ")

/** A parent's global flag copied into this command (its choices may differ: a select fills them per command). */
const isInheritedGlobal = (flag: Flag, parent: Command): boolean =>
  flag.global &&
  parent.flags.some(
    (g) =>
      g.global &&
      sameNames(g, flag) &&
      JSON.stringify({ ...g, arg: g.arg && { ...g.arg, choices: undefined } }) ===
        JSON.stringify({ ...flag, arg: flag.arg && { ...flag.arg, choices: undefined } }),
  )

const writeFlag = (flag: Flag, cmd: Command, ind: string): Array<string> => {
  const usage = Either.getOrUndefined(parseFlagUsage(flag.usage))
  const valueInUsage = usage?.arg
  const head = `${ind}flag ${quoted(flag.usage)}${kdlProps([
    ["help", flag.help],
    ["global", flag.global],
    ["hide", flag.hide],
    ["var", flag.variadic && valueInUsage?.variadic !== true],
    ["default", flag.default],
  ])}`
  const choices = flag.arg?.choices
  const derived =
    choices !== undefined &&
    cmd.select !== undefined &&
    isSelectFlag(flag, cmd) &&
    derivable(choices, cmd.outputs)
  const choiceLines = choices === undefined || derived ? [] : writeChoices(choices, `${ind}  `)
  if (flag.arg !== undefined && valueInUsage === undefined) {
    const value = formatValueUsage({ name: flag.arg.name, required: flag.arg.required, variadic: false })
    return withChildren(
      head,
      withChildren(
        `${ind}  arg ${quoted(value)}`,
        choiceLines.map((l) => `  ${l}`),
        `${ind}  `,
      ),
      ind,
    )
  }
  return withChildren(head, choiceLines, ind)
}

const isSelectFlag = (flag: Flag, cmd: Command): boolean => cmd.select === canonicalFlagName(flag)

/** Choices a `select` would fill again from the outputs: not written, so each command gets its own. */
const derivable = (choices: ReadonlyArray<Choice>, outputs: ReadonlyArray<Output>): boolean =>
  choices.length === outputs.length &&
  choices.every((c, i) => c.value === outputs[i]?.name && c.help === outputs[i]?.help)

/** `choices "a" "b"`, or the block form when a choice has its own help. */
const writeChoices = (choices: ReadonlyArray<Choice>, ind: string): Array<string> =>
  choices.every((c) => c.help === undefined)
    ? [`${ind}choices ${choices.map((c) => quoted(c.value)).join(" ")}`]
    : [
        `${ind}choices {`,
        ...choices.map((c) => `${ind}  choice ${quoted(c.value)}${kdlProps([["help", c.help]])}`),
        `${ind}}`,
      ]

const presentFlag = (o: Output): string | undefined =>
  o.selector?.kind === "present" ? o.selector.flag : undefined

/** Whether a command's output is the inherited one unchanged (selectors a `select` derives aside). */
const sameDeclaration = (a: Output, b: Output): boolean =>
  a.media_type === b.media_type &&
  a.framing === b.framing &&
  a.help === b.help &&
  a.default === b.default &&
  a.schema === b.schema &&
  presentFlag(a) === presentFlag(b)

const writeOutput = (o: Output, ind: string): Array<string> => {
  const head = `${ind}output ${quoted(o.name)}${kdlProps([
    ["media_type", o.media_type],
    ["framing", o.framing === "text" ? undefined : o.framing],
    ["help", o.help],
    ["default", o.default],
    ["select", presentFlag(o)],
  ])}`
  const schema = o.schema === undefined ? [] : [`${ind}  schema ${textLiteral(o.schema, `${ind}    `)}`]
  return withChildren(head, schema, ind)
}
