// The import graph of src/ and the layering rules it must keep (docs/architecture.md).
// Pure functions over a map of file path -> source text, so that a test can feed them a
// deliberately bad map and see the failure they report.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import ts from "typescript"

/** One relative import of a source file: where it is and what it names. */
export interface Import {
  /** The importing file, relative to the source root (`cli/main.ts`). */
  readonly from: string
  readonly line: number
  readonly specifier: string
  /** The imported file, relative to the source root; undefined when it lies outside it. */
  readonly to: string | undefined
}

/** Every source file under `root` (`.ts`), relative to it, with its text. */
export const readSources = (root: string): Map<string, string> => {
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = nodePath.join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts"))
        files.set(nodePath.relative(root, path).split(nodePath.sep).join("/"), fs.readFileSync(path, "utf8"))
    }
  }
  walk(root)
  return files
}

/**
 * The relative imports of every file: static `import`/`export ... from` (type-only ones too),
 * dynamic `import()` and `typeof import()`, found by TypeScript's own scanner (comments and
 * strings are not imports). A `.js` specifier names the `.ts` file beside it.
 */
export const importsOf = (files: ReadonlyMap<string, string>): ReadonlyArray<Import> =>
  [...files].flatMap(([from, text]) =>
    ts
      .preProcessFile(text, true, true)
      .importedFiles.filter((f) => f.fileName.startsWith("."))
      .map((f) => {
        const joined = nodePath.posix.normalize(nodePath.posix.join(nodePath.posix.dirname(from), f.fileName))
        const candidates = [joined.replace(/\.js$/, ".ts"), joined, `${joined}.ts`, `${joined}/index.ts`]
        const to = joined.startsWith("../") ? undefined : (candidates.find((c) => files.has(c)) ?? joined)
        return { from, line: text.slice(0, f.pos).split("\n").length, specifier: f.fileName, to }
      }),
  )

/** The layer a file belongs to: its top folder under the source root, or the file itself at the root. */
export const folderOf = (file: string): string => file.split("/")[0] ?? file

const where = (i: Import) => `src/${i.from}:${i.line} imports "${i.specifier}"`

/**
 * Imports against `levels` (bottom first): a folder may import its own files and folders on a
 * lower level only; folders that share a level may not import each other. A folder that has
 * no level is a failure of its own (each new folder takes its place in the order).
 */
export const layeringProblems = (
  imports: ReadonlyArray<Import>,
  levels: ReadonlyArray<ReadonlyArray<string>>,
): ReadonlyArray<string> => {
  const levelOf = new Map(levels.flatMap((names, level) => names.map((name) => [name, level] as const)))
  const problems: Array<string> = []
  const unplaced = new Set<string>()
  for (const i of imports) {
    if (i.to === undefined) continue
    const [a, b] = [folderOf(i.from), folderOf(i.to)]
    if (a === b) continue
    for (const f of [a, b]) if (!levelOf.has(f)) unplaced.add(f)
    const [la, lb] = [levelOf.get(a), levelOf.get(b)]
    if (la === undefined || lb === undefined) continue
    if (la === lb) problems.push(`${where(i)}: ${a}/ and ${b}/ share a level and may not import each other`)
    else if (la < lb) problems.push(`${where(i)}: ${a}/ lies below ${b}/ and may not import it`)
  }
  for (const f of unplaced) problems.push(`src/${f} has no place in the layering order: give it a level`)
  return problems
}

/**
 * The import cycles among files, one per strongly connected set: the cycle's imports in
 * order (Tarjan's algorithm finds the sets; a walk inside a set closes one cycle).
 */
export const fileCycles = (imports: ReadonlyArray<Import>): ReadonlyArray<ReadonlyArray<Import>> => {
  const out = new Map<string, Array<Import>>()
  for (const i of imports)
    if (i.to !== undefined && i.to !== i.from) out.set(i.from, [...(out.get(i.from) ?? []), i])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const sets: Array<Set<string>> = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v) ?? 0)
    stack.push(v)
    onStack.add(v)
    for (const { to: w } of out.get(v) ?? []) {
      if (w === undefined) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
    }
    if (low.get(v) === index.get(v)) {
      const set = new Set<string>()
      let w: string | undefined
      do {
        w = stack.pop()
        if (w !== undefined) {
          onStack.delete(w)
          set.add(w)
        }
      } while (w !== undefined && w !== v)
      if (set.size > 1) sets.push(set)
    }
  }
  for (const v of [...out.keys()].sort()) if (!index.has(v)) visit(v)
  return sets.map((set) => {
    // from the set's first file, follow imports that stay in the set until a file repeats
    const start = [...set].sort()[0] ?? ""
    const path: Array<Import> = []
    const seen = new Map<string, number>()
    let at = start
    while (!seen.has(at)) {
      seen.set(at, path.length)
      const next = (out.get(at) ?? []).find((i) => i.to !== undefined && set.has(i.to))
      if (next?.to === undefined) break
      path.push(next)
      at = next.to
    }
    return path.slice(seen.get(at) ?? 0)
  })
}

/** A cycle as one line: each import of it, `file:line "specifier"`, in order. */
export const describeCycle = (cycle: ReadonlyArray<Import>): string =>
  `import cycle: ${cycle.map((i) => `src/${i.from}:${i.line} "${i.specifier}"`).join(" -> ")}`
