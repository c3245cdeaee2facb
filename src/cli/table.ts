import { bold, isTTY } from "./output.js"

const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length

/** An aligned table: bold header on a terminal, tab-free plain columns otherwise. */
export const renderTable = (
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
): string => {
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
