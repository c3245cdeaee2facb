// What the raw-argument checks (argvChecks.ts, help.ts) need to know of the command tree: the
// flags that take a value and the commands made of subcommands. Read from `rootCommand` itself;
// the build (scripts/build.mjs) reads them once and bakes them into dist/cli.cjs, so that a
// command does not walk the tree at every start (~0.75 ms), while tests read the tree.
import { rootCommand } from "./commands.js"
import { OPTIONAL_VALUE } from "./portFlags.js"
import { type CliTree, readCliTree } from "./usageSpec/effectCli.js"

export interface ArgvTables {
  /** Every flag that takes a value, long and short (`--bump`, whose value is optional: not). */
  readonly valueFlags: ReadonlyArray<string>
  /** The commands made of subcommands, and theirs (`config`: `show`, `validate`). */
  readonly subcommands: Readonly<Record<string, ReadonlyArray<string>>>
  /** Every flag whose value is one of a list, with the list (`--level`: trace, debug, ...). */
  readonly choiceFlags: Readonly<Record<string, ReadonlyArray<string>>>
  /** Per command (`logs`, `config show`): the names of each flag that may be given once. */
  readonly onceFlags: Readonly<Record<string, ReadonlyArray<ReadonlyArray<string>>>>
  /** The program's commands, in the order of the tree (`start`, `stop`, ..., `usage`). */
  readonly commands: ReadonlyArray<string>
  /** Per command path (`""` is the program): every flag it takes, long and short. */
  readonly commandFlags: Readonly<Record<string, ReadonlyArray<string>>>
}

/** The tables of a command tree. */
export const tablesOf = (root: CliTree): ArgvTables => {
  const valueFlags = new Set<string>()
  const onceFlags: Record<string, ReadonlyArray<ReadonlyArray<string>>> = {}
  const choiceFlags: Record<string, ReadonlyArray<string>> = {}
  const commandFlags: Record<string, ReadonlyArray<string>> = {}
  const visit = (tree: CliTree, words: ReadonlyArray<string>): void => {
    const once: Array<ReadonlyArray<string>> = []
    const all: Array<string> = []
    for (const flag of tree.flags) {
      const names = [...flag.long.map((l) => `--${l}`), ...flag.short.map((s) => `-${s}`)]
      all.push(...names)
      if (flag.arg !== undefined && !flag.long.includes(OPTIONAL_VALUE.flag))
        for (const n of names) valueFlags.add(n)
      if (!flag.variadic) once.push(names)
      const choices = flag.arg?.choices?.map((c) => c.value)
      if (choices !== undefined && choices.length > 0) for (const n of names) choiceFlags[n] = choices
    }
    if (words.length > 0 && once.length > 0) onceFlags[words.join(" ")] = once
    commandFlags[words.join(" ")] = all
    for (const sub of tree.subcommands) visit(sub, [...words, sub.name])
  }
  visit(root, [])
  const subcommands = Object.fromEntries(
    root.subcommands
      .filter((c) => c.subcommands.length > 0)
      .map((c) => [c.name, c.subcommands.map((s) => s.name)]),
  )
  const commands = root.subcommands.map((c) => c.name)
  return { valueFlags: [...valueFlags].sort(), subcommands, onceFlags, choiceFlags, commands, commandFlags }
}

/** The tables of the CLI's own command tree, walked now. */
export const treeArgvTables = (): ArgvTables => tablesOf(readCliTree(rootCommand))

/** Set by the build (esbuild `define`) to `treeArgvTables()` as it was when the bundle was made. */
declare const SUPERVISOR_ARGV_TABLES: ArgvTables | undefined

let tables: ArgvTables | undefined

/** The CLI's tables: baked into the bundle, else (tests, scripts) read from the tree once. */
export const argvTables = (): ArgvTables => {
  tables ??= typeof SUPERVISOR_ARGV_TABLES === "undefined" ? treeArgvTables() : SUPERVISOR_ARGV_TABLES
  return tables
}
