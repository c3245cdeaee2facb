import { Either } from "effect"
import { formatValue, kdlName } from "./kdl/format.js"
import { quoted, textLiteral } from "./kdlText.js"
import type { Arg, Choice, Complete, Config, Flag, KdlScalar, Kept, Output } from "./model.js"
import { formatValueUsage, parseArgUsage, parseFlagUsage } from "./usageString.js"

/**
 * KDL for the nodes inside a command (writer.ts writes the tree): flags, args, choices, outputs,
 * completers, `config`, and what was kept. Each writes what its node says, so parsing the text
 * gives the same model.
 */

type PropValue = KdlScalar | undefined

/** ` key=value` for each defined entry, in the given order; booleans only when true. */
export const props = (entries: ReadonlyArray<readonly [string, PropValue]>): string =>
  entries
    .filter((e): e is readonly [string, KdlScalar] => e[1] !== undefined && e[1] !== false)
    .map(([k, v]) => ` ${kdlName(k)}=${formatValue(v)}`)
    .join("")

export const withChildren = (head: string, children: ReadonlyArray<string>, ind: string): Array<string> =>
  children.length === 0 ? [head] : [`${head} {`, ...children, `${ind}}`]

/** Kept properties (after the node's own) and kept child nodes (indented under it). */
export const keptProps = (kept: Kept | undefined): string => props(kept?.props ?? [])
export const keptNodes = (kept: Kept | undefined, ind: string): Array<string> =>
  (kept?.nodes ?? []).flatMap((n) => n.split("\n").map((l) => `${ind}${l}`))

/** A list attribute: one value as a property, several as a child node. */
const listProp = (list: ReadonlyArray<string> | undefined): string | undefined =>
  list?.length === 1 ? list[0] : undefined
const listNode = (name: string, list: ReadonlyArray<string> | undefined, ind: string): Array<string> =>
  list !== undefined && list.length > 1 ? [`${ind}${name} ${list.map(quoted).join(" ")}`] : []

/** `default { "a"; "b" }` for several defaults. */
const defaultBlock = (list: ReadonlyArray<string> | undefined, ind: string): Array<string> =>
  list === undefined ? [] : [`${ind}default {`, ...list.map((v) => `${ind}  ${quoted(v)}`), `${ind}}`]

/** `choices "a" "b"`, or the block form when a choice has help, is hidden or has aliases. */
export const writeChoices = (
  choices: ReadonlyArray<Choice>,
  how: {
    readonly ignore_case?: boolean | undefined
    readonly choices_strict?: boolean | undefined
    readonly choices_env?: string | undefined
  },
  ind: string,
): Array<string> => {
  const switches = props([
    ["ignore_case", how.ignore_case],
    ["env", how.choices_env],
  ])
  const strict = how.choices_strict === false ? " strict=#false" : ""
  const head = `${ind}choices${switches}${strict}`
  if (choices.every((c) => c.help === undefined && c.hide === undefined && c.aliases === undefined))
    return [`${ind}choices${choices.map((c) => ` ${quoted(c.value)}`).join("")}${switches}${strict}`]
  return [
    `${head} {`,
    ...choices.flatMap((c) =>
      withChildren(
        `${ind}  choice ${quoted(c.value)}${props([
          ["help", c.help],
          ["hide", c.hide],
        ])}`,
        (c.aliases ?? []).map((a) => `${ind}    alias ${quoted(a.value)}${props([["hide", a.hide]])}`),
        `${ind}  `,
      ),
    ),
    `${ind}}`,
  ]
}

/** `choices` a `select` fills again from the outputs are left out (`derived`). */
export const writeFlag = (flag: Flag, derivedChoices: boolean, ind: string): Array<string> => {
  const usage = Either.getOrUndefined(parseFlagUsage(flag.usage))
  const inUsage = usage?.arg
  const implied = (usage?.variadic ?? false) || (inUsage?.variadic ?? false)
  const head = `${ind}flag ${quoted(flag.usage)}${props([
    ["help", flag.help],
    ["long_help", flag.long_help],
    ["global", flag.global],
    ["hide", flag.hide],
    ["var", flag.variadic && !implied],
    ["count", flag.count],
    ["required", flag.required],
    ["negate", flag.negate],
    ["env", flag.env],
    ["deprecated", flag.deprecated],
    ["default", flag.default_list === undefined ? flag.default : undefined],
    ["conflicts", listProp(flag.conflicts)],
    ["overrides", listProp(flag.overrides)],
    ["exclusive", flag.exclusive],
    ["effect", flag.effect],
  ])}${keptProps(flag.kept)}`
  const sub = `${ind}  `
  const named = new Set([
    ...(usage?.long ?? []).map((l) => `--${l}`),
    ...(usage?.short ?? []).map((s) => `-${s}`),
  ])
  const hidden = new Set(flag.hidden_names ?? [])
  const extra = [...flag.short.map((s) => `-${s}`), ...flag.long.map((l) => `--${l}`)].filter(
    (n) => !named.has(n),
  )
  const visible = extra.filter((n) => !hidden.has(n))
  const children: Array<string> = []
  if (visible.length > 0) children.push(`${sub}alias ${visible.map(quoted).join(" ")}`)
  if (hidden.size > 0) children.push(`${sub}alias ${[...hidden].map(quoted).join(" ")} hide=#true`)
  const arg = flag.arg
  const choiceLines = arg?.choices === undefined || derivedChoices ? [] : writeChoices(arg.choices, arg, sub)
  if (
    arg !== undefined &&
    (inUsage === undefined || inUsage.name !== arg.name || inUsage.required !== arg.required)
  ) {
    const value = formatValueUsage({ name: arg.name, required: arg.required, variadic: false })
    children.push(
      ...withChildren(
        `${sub}arg ${quoted(value)}`,
        choiceLines.map((l) => `  ${l}`),
        sub,
      ),
    )
  } else children.push(...choiceLines)
  children.push(
    ...listNode("conflicts", flag.conflicts, sub),
    ...listNode("overrides", flag.overrides, sub),
    ...defaultBlock(flag.default_list, sub),
    ...keptNodes(flag.kept, sub),
  )
  return withChildren(head, children, ind)
}

export const writeArg = (arg: Arg, ind: string): Array<string> => {
  const usage = Either.getOrUndefined(parseArgUsage(arg.usage))
  const impliedRequired = arg.default === undefined && (usage?.required ?? true)
  const head = `${ind}arg ${quoted(arg.usage)}${props([
    ["help", arg.help],
    ["long_help", arg.long_help],
    ["required", arg.required === impliedRequired ? undefined : arg.required],
    ["var", arg.variadic && usage?.variadic !== true],
    ["var_min", arg.var_min],
    ["var_max", arg.var_max],
    ["hide", arg.hide],
    [
      "double_dash",
      (arg.double_dash ?? "optional") === (usage?.double_dash ?? "optional")
        ? undefined
        : (arg.double_dash ?? "optional"),
    ],
    ["default", arg.default_list === undefined ? arg.default : undefined],
    ["env", arg.env],
    ["effect", arg.effect],
  ])}${keptProps(arg.kept)}`
  const sub = `${ind}  `
  return withChildren(
    head,
    [
      ...(arg.choices === undefined ? [] : writeChoices(arg.choices, arg, sub)),
      ...defaultBlock(arg.default_list, sub),
      ...keptNodes(arg.kept, sub),
    ],
    ind,
  )
}

export const presentFlag = (o: Output): string | undefined =>
  o.selector?.kind === "present" ? o.selector.flag : undefined

export const writeOutput = (o: Output, ind: string): Array<string> => {
  const head = `${ind}output ${quoted(o.name)}${props([
    ["media_type", o.media_type],
    ["framing", o.framing === "text" ? undefined : o.framing],
    ["help", o.help],
    ["default", o.default],
    ["select", presentFlag(o)],
  ])}`
  const schema = o.schema === undefined ? [] : [`${ind}  schema ${textLiteral(o.schema, `${ind}    `)}`]
  return withChildren(head, schema, ind)
}

export const writeComplete = (c: Complete, ind: string): string =>
  `${ind}complete ${quoted(c.name)}${props([
    ["run", c.run],
    ["type", c.type],
    ["delegate", c.delegate],
    ["descriptions", c.descriptions],
  ])}`

export const writeConfig = (config: Config): Array<string> =>
  withChildren(
    "config",
    [
      ...(config.sources ?? []).map(
        (src) =>
          `  source ${quoted(src.kind)}${props([
            ["name", src.name],
            ["doc_hint", src.doc_hint],
            ["set_hint", src.set_hint],
          ])}`,
      ),
      ...config.files.map(
        (f) =>
          `  file ${quoted(f.path)}${props([
            ["findup", f.findup],
            ["scope", f.scope],
            ["format", f.format],
          ])}`,
      ),
      ...config.props.flatMap((p) =>
        withChildren(
          `  prop ${quoted(p.key)}${props([
            ["default", p.default],
            ["default_note", p.default_note],
            ["data_type", p.data_type],
            ["type", p.type],
            ["env", p.env],
            ["help", p.help],
            ["long_help", p.long_help],
            ["deprecated", p.deprecated],
          ])}${keptProps(p.kept)}`,
          keptNodes(p.kept, "    "),
          "  ",
        ),
      ),
      ...config.defaults.map((d) => `  default ${quoted(d.key)} ${quoted(d.value)}`),
      ...config.aliases.map((a) => `  alias ${quoted(a.key)} ${quoted(a.alias)}`),
    ],
    "",
  )
