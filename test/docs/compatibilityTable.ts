// Reads the tables of docs/compatibility.md: under each `## Section`, rows of
// `| pitchfork | supervisor | verdict | why |`, the first two a code span or `—` (none).

export const VERDICTS = ["same", "renamed", "differs", "ours only", "not yet", "not planned"] as const

export interface Row {
  readonly pitchfork: string | undefined
  readonly ours: string | undefined
  readonly verdict: (typeof VERDICTS)[number]
  /** The row as written, for messages. */
  readonly line: string
}

const cell = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (trimmed === "—" || trimmed === "") return undefined
  const code = /^`([^`]+)`$/.exec(trimmed)
  if (code === null) throw new Error(`expected a code span or —, got ${JSON.stringify(trimmed)}`)
  return code[1]
}

/** The rows of every table, by the `## ` heading above it. */
export const parseCompatibility = (markdown: string): ReadonlyMap<string, ReadonlyArray<Row>> => {
  const sections = new Map<string, Array<Row>>()
  let current: Array<Row> | undefined
  let inTable = false // in a table whose header is `| pitchfork | supervisor | verdict | ... |`
  for (const line of markdown.split("\n")) {
    const heading = /^## (.+)$/.exec(line)
    if (heading !== null) {
      current = []
      sections.set(heading[1]!.trim(), current)
      continue
    }
    if (!line.startsWith("|")) {
      inTable = false
      continue
    }
    const cells = line.split("|").slice(1, -1)
    if (!inTable) {
      inTable = cells[0]?.trim() === "pitchfork" && cells[2]?.trim() === "verdict"
      continue
    }
    if (current === undefined || cells.length < 3 || /^\s*-+\s*$/.test(cells[0]!)) continue
    current.push({
      pitchfork: cell(cells[0]!),
      ours: cell(cells[1]!),
      verdict: cells[2]!.trim() as Row["verdict"],
      line,
    })
  }
  return sections
}
