import { bold, isTTY } from "./output.js"

const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length

/** The last column is never cut shorter than this (`maxWidth`). */
const MIN_LAST_COLUMN = 8

/**
 * An aligned table: bold header on a terminal, tab-free plain columns otherwise. With
 * `maxWidth`, the last column's cells (plain text) are cut with `…` to keep rows within it, but
 * never shorter than 8 characters.
 */
export const renderTable = (
  header: ReadonlyArray<string>,
  body: ReadonlyArray<ReadonlyArray<string>>,
  options: { readonly maxWidth?: number } = {},
): string => {
  const last = header.length - 1
  const before = header
    .slice(0, last)
    .reduce((sum, h, i) => sum + 2 + Math.max(h.length, ...body.map((r) => visible(r[i] ?? ""))), 0)
  const room =
    options.maxWidth === undefined ? Infinity : Math.max(MIN_LAST_COLUMN, options.maxWidth - before)
  const rows = body.map((r) => {
    const cell = r[last]
    if (cell === undefined || cell.length <= room) return r
    return [...r.slice(0, last), `${cell.slice(0, room - 1)}…`]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visible(r[i] ?? ""))))
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(widths[i]! - visible(c))))
      .join("  ")
      .trimEnd()
  const head = line(header)
  return [isTTY() ? bold(head) : head, ...rows.map(line)].join("\n")
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
