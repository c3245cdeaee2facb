import { type DecodeContext, labelOf, noExtraValues, reporter, showKdlValue, stringValue } from "./context.js"
import type { CommandDecl, FlagDecl, FlagsetDecl, UseDecl } from "./decl.js"
import { decodeFlag } from "./decodeFlag.js"
import type { KdlNode } from "./kdl.js"
import type { Flag } from "./model.js"

/**
 * Flagsets, as usage defines them (lib/src/spec/flagset.rs, docs/spec/reference/flagset.md): a
 * `flagset "name" { flag ...; use ... }` at the top level names flags to reuse, and `use "name"`
 * in a command (or at the top level, or in another set) puts them where it stands. It is
 * authoring sugar resolved while reading: afterwards the flags are ordinary flags of each
 * command (in `describe`, the docs, completions and validation), and `spec fmt` writes them out.
 *
 * The command's own declaration of a name wins over a set's, and a set reached twice contributes
 * once. Every set is resolved even when nothing uses it, so a mistake in one is reported.
 */

export const decodeUse = (node: KdlNode, at: number, report: (m: string) => void): UseDecl | undefined => {
  for (const [k, v] of Object.entries(node.properties))
    report(`unknown property ${k}=${showKdlValue(v)} (use takes none)`)
  if (node.children.length > 0)
    report("use names flagsets and holds nothing: declare the flags in the flagset itself")
  if (node.values.length === 0) report('use needs the name of at least one flagset (use "output")')
  const names: Array<string> = []
  for (const i of node.values.keys()) {
    const name = stringValue(node, i, "a flagset name", report)
    if (name !== undefined) names.push(name)
  }
  return names.length === 0
    ? undefined
    : { file: node.file, line: node.line, label: labelOf(node), names, at }
}

export const decodeFlagset = (node: KdlNode, ctx: DecodeContext): FlagsetDecl | undefined => {
  const report = reporter(ctx, node, [])
  const name = stringValue(node, 0, 'a name (flagset "output")', report)
  noExtraValues(node, 1, report)
  for (const [k, v] of Object.entries(node.properties))
    report(`unknown property ${k}=${showKdlValue(v)} (flagset takes none)`)
  const flags: Array<FlagDecl> = []
  const uses: Array<UseDecl> = []
  for (const child of node.children) {
    const r = reporter(ctx, child, [])
    if (child.name === "flag") {
      const flag = decodeFlag(child, [], ctx)
      if (flag !== undefined) flags.push(flag)
    } else if (child.name === "use") {
      const use = decodeUse(child, flags.length, r)
      if (use !== undefined) uses.push(use)
    } else if (child.name === "arg")
      r("a flagset holds flags, not arguments: declare the argument on each command that takes it")
    else r(`unknown child node "${child.name}" (a flagset holds flag and use)`)
  }
  return name === undefined
    ? undefined
    : { file: node.file, line: node.line, label: labelOf(node), name, flags, uses }
}

const overlap = (a: Flag, b: Flag): boolean =>
  a.long.some((l) => b.long.includes(l)) || a.short.some((s) => b.short.includes(s))

/** Replaces every `use` in the tree with the flags it names; problems go to `ctx`. */
export const expandFlagsets = (
  root: CommandDecl,
  declared: ReadonlyArray<FlagsetDecl>,
  ctx: DecodeContext,
): CommandDecl => {
  const sets = new Map<string, FlagsetDecl>()
  for (const set of declared) {
    const first = sets.get(set.name)
    // One declaration reached by two routes (a shared file included twice) is not two.
    if (first !== undefined && first.file === set.file && first.line === set.line) continue
    if (first !== undefined)
      ctx.problems.add(set, [], set.label, `a flagset may be declared only once ("${set.name}")`)
    else sets.set(set.name, set)
  }
  const cache = new Map<string, ReadonlyArray<FlagDecl>>()
  const stack: Array<string> = []
  const resolve = (name: string, use: UseDecl): ReadonlyArray<FlagDecl> => {
    const cached = cache.get(name)
    if (cached !== undefined) return cached
    const set = sets.get(name)
    if (set === undefined) {
      const known = [...sets.keys()]
      const hint = known.length === 0 ? "no flagsets are declared" : `declared: ${known.join(", ")}`
      ctx.problems.add(use, [], use.label, `unknown flagset "${name}" (${hint})`)
      return []
    }
    if (stack.includes(name)) {
      ctx.problems.add(set, [], set.label, `flagset cycle: ${[...stack, name].join(" -> ")}`)
      return []
    }
    stack.push(name)
    const flags = splice(set.flags, set.uses)
    stack.pop()
    cache.set(name, flags)
    return flags
  }
  const splice = (own: ReadonlyArray<FlagDecl>, uses: ReadonlyArray<UseDecl>): ReadonlyArray<FlagDecl> => {
    if (uses.length === 0) return own
    const flags = [...own]
    let inserted = 0
    for (const use of uses) {
      let at = Math.min(use.at + inserted, flags.length)
      for (const name of use.names) {
        for (const f of resolve(name, use)) {
          if (flags.some((g) => overlap(g.flag, f.flag))) continue
          flags.splice(at, 0, f)
          at++
          inserted++
        }
      }
    }
    return flags
  }
  for (const set of sets.values()) resolve(set.name, { ...set, names: [set.name], at: 0 })
  const expand = (cmd: CommandDecl): CommandDecl => ({
    ...cmd,
    flags: splice(cmd.flags, cmd.uses),
    uses: [],
    subcommands: cmd.subcommands.map(expand),
  })
  return expand(root)
}
