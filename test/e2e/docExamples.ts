/**
 * The ```toml examples of a docs page, each with the commands its `<!-- run: ARGS => STATUS -->`
 * markers give and the ports its `<!-- ports: N M -->` marker lists (replaced with free ones).
 */
export interface DocExample {
  readonly line: number
  readonly toml: string
  readonly runs: ReadonlyArray<{ readonly args: ReadonlyArray<string>; readonly status: number }>
  readonly ports: ReadonlyArray<number>
}

export const docExamples = (markdown: string): Array<DocExample> => {
  const lines = markdown.split("\n")
  const out: Array<DocExample> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```toml") continue
    const markers: Array<string> = []
    for (let j = i - 1; j >= 0; j--) {
      const m = /^<!--\s*(.*?)\s*-->$/.exec(lines[j]!.trim())
      if (!m) break
      markers.unshift(m[1]!)
    }
    const end = lines.indexOf("```", i + 1)
    const runs = markers.flatMap((m) => {
      const r = /^run:\s*(.*?)\s*=>\s*(\d+)$/.exec(m)
      return r ? [{ args: r[1]!.split(/\s+/), status: Number(r[2]) }] : []
    })
    const ports = markers.flatMap((m) =>
      m.startsWith("ports:") ? m.slice(6).trim().split(/\s+/).map(Number) : [],
    )
    out.push({ line: i + 1, toml: lines.slice(i + 1, end).join("\n"), runs, ports })
    i = end
  }
  return out
}
