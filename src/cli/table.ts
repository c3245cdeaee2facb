import { bold, isTTY } from "./output.js"

const ESCAPE = /\u001b\[[0-9;]*m/g
const visible = (s: string) => s.replace(ESCAPE, "").length

/**
 * `s` cut to `width` visible characters, the last one `…`; colour codes are kept (and closed
 * when one was cut off) so a cut cell never bleeds its colour into the next.
 */
export const cutVisible = (s: string, width: number): string => {
  if (visible(s) <= width) return s
  let out = ""
  let shown = 0
  let coloured = false
  for (let i = 0; i < s.length && shown < width - 1; ) {
    const m = s.charCodeAt(i) === 0x1b ? /^\u001b\[[0-9;]*m/.exec(s.slice(i)) : null
    if (m !== null) {
      out += m[0]
      coloured = m[0] !== "\u001b[0m" && m[0] !== "\u001b[39m" && m[0] !== "\u001b[22m"
      i += m[0].length
    } else {
      out += s[i]
      shown++
      i++
    }
  }
  return `${out}…${coloured ? "\u001b[0m" : ""}`
}

/** One way of narrowing a table that is too wide: column `column` down to `min` characters. */
export interface Shrink {
  readonly column: number
  readonly min: number
}

/** The last column is never cut shorter than this (`maxWidth`). */
const MIN_LAST_COLUMN = 8

/**
 * An aligned table: bold header on a terminal, tab-free plain columns otherwise. With
 * `maxWidth`, cells are cut with `…` to keep rows within it, following `shrink` in order (each
 * step narrows one column down to its minimum before the next is tried); by default only the
 * last column is cut, never below 8 characters.
 */
export const renderTable = (
  header: ReadonlyArray<string>,
  body: ReadonlyArray<ReadonlyArray<string>>,
  options: { readonly maxWidth?: number; readonly shrink?: ReadonlyArray<Shrink> } = {},
): string => {
  const last = header.length - 1
  const natural = header.map((h, i) => Math.max(h.length, ...body.map((r) => visible(r[i] ?? ""))))
  const widths = [...natural]
  if (options.maxWidth !== undefined) {
    let excess = widths.reduce((sum, w) => sum + w, 0) + 2 * last - options.maxWidth
    for (const step of options.shrink ?? [{ column: last, min: MIN_LAST_COLUMN }]) {
      if (excess <= 0) break
      const floor = Math.max(step.min, header[step.column]?.length ?? 0)
      const cut = Math.min(excess, Math.max(0, widths[step.column]! - floor))
      widths[step.column] = (widths[step.column] ?? 0) - cut
      excess -= cut
    }
  }
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => {
        const cell = cutVisible(c, widths[i]!)
        return i === cells.length - 1 ? cell : cell + " ".repeat(widths[i]! - visible(cell))
      })
      .join("  ")
      .trimEnd()
  const head = line(header)
  return [isTTY() ? bold(head) : head, ...body.map(line)].join("\n")
}

export const formatUptime = (secs: number): string => {
  if (secs <= 0) return "0s"
  if (secs < 60) return `${secs}s`
  if (secs < 3600) return `${Math.floor(secs / 60)}m${secs % 60 ? `${secs % 60}s` : ""}`
  if (secs < 86400) return `${Math.floor(secs / 3600)}h${Math.floor((secs % 3600) / 60)}m`
  return `${Math.floor(secs / 86400)}d${Math.floor((secs % 86400) / 3600)}h`
}

/** `0.4%`: CPU use in percent of one core. */
export const formatCpu = (percent: number) => `${percent.toFixed(1)}%`

/** `820K`, `12.4M`, `310M`, `1.2G`: resident memory in binary units, short enough for a column. */
export const formatMemory = (bytes: number): string => {
  const kib = bytes / 1024
  if (kib < 1024) return `${Math.round(kib)}K`
  const mibs = kib / 1024
  if (mibs < 100) return `${mibs.toFixed(1)}M`
  if (mibs < 1024) return `${Math.round(mibs)}M`
  return `${(mibs / 1024).toFixed(1)}G`
}
