import { Data } from "effect"

/**
 * One problem found in a usage spec. Validation collects every problem instead of stopping at
 * the first, so an author fixes a spec in one round: each names the file (and line when the
 * KDL parser let us locate the node), the command path (`supervisor daemons start`) and the
 * node (`output "json"`, `select "--format"`, `exit_code 256`).
 */
export interface UsageSpecProblem {
  readonly file: string
  readonly line?: number | undefined
  /** The command path, the CLI's `bin` first (`["supervisor", "daemons", "start"]`); `[]` for file-level problems. */
  readonly path: ReadonlyArray<string>
  /** The node as the author wrote it, e.g. `output "json"`; `""` when the problem is not about one node. */
  readonly node: string
  readonly message: string
}

/** A usage spec could not be parsed or resolved: every problem found, not just the first. */
export class UsageSpecError extends Data.TaggedError("UsageSpecError")<{
  readonly problems: ReadonlyArray<UsageSpecProblem>
}> {
  override get message(): string {
    return formatUsageProblems(this.problems)
  }
}

/** `spec.kdl:12: supervisor daemons start: output "json": framing "xml" is not one of text, json, jsonl` */
export const formatUsageProblem = (p: UsageSpecProblem): string => {
  const where = p.line === undefined ? p.file : `${p.file}:${p.line}`
  const words = p.path.join(" ").trim()
  const path = words === "" ? "" : `${words}: `
  const node = p.node === "" ? "" : `${p.node}: `
  return `${where}: ${path}${node}${p.message}`
}

/** One line per problem, in the order found. */
export const formatUsageProblems = (problems: ReadonlyArray<UsageSpecProblem>): string =>
  problems.map(formatUsageProblem).join("\n")

/** Where a node was declared: its file and, when known, its line. */
export interface Loc {
  readonly file: string
  readonly line?: number | undefined
}

/**
 * A mutable sink the parsing stages share. Passing one collector around (rather than returning
 * `Either`s) is what lets every stage keep going after a problem and report them all together.
 */
export class Problems {
  readonly all: Array<UsageSpecProblem> = []
  add(loc: Loc, path: ReadonlyArray<string>, node: string, message: string): void {
    this.all.push({ file: loc.file, line: loc.line, path, node, message })
  }
  get isEmpty(): boolean {
    return this.all.length === 0
  }
  /**
   * In reading order: stages run one after another (includes, nodes, inheritance), so problems
   * are found out of order; they are shown grouped by file, by line, then as found. One cause
   * on one line is one problem, however often it was found (a file included twice, a
   * declaration checked in every command that inherits it).
   */
  sorted(): ReadonlyArray<UsageSpecProblem> {
    const files = [...new Set(this.all.map((p) => p.file))]
    const seen = new Set<string>()
    const unique = this.all.filter((p) => {
      const key = `${p.file}\u0000${p.line}\u0000${p.node}\u0000${p.message}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    return unique
      .map((p, i) => ({ p, i }))
      .sort(
        (a, b) =>
          files.indexOf(a.p.file) - files.indexOf(b.p.file) || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i,
      )
      .map(({ p }) => p)
  }
}
