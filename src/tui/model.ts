import { formatCpu, formatMemory, formatUptime } from "../cli/table.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { inNamespaces } from "../domain/DaemonId.js"
import { isActiveStatus, type StatusType } from "../domain/DaemonStatus.js"
import { fuzzyFilter } from "./fuzzy.js"

// The dashboard's view model, without React or I/O: rows, filtering, the visible window, and
// the columns' text (src/tui/App.ts draws them).

/** The colours of the statuses, as `supervisor list` has them (green, red, yellow, dim). */
export type StatusColour = "green" | "red" | "yellow" | "gray"

/** One line of the table, its cells already formatted. */
export interface Row {
  readonly id: string
  readonly status: StatusType
  readonly colour: StatusColour
  readonly enabled: boolean
  /** The configured daemon it runs (an instance's daemon), and the file that configures it (null: ad hoc). */
  readonly daemon: string
  readonly source: string | null
  readonly cells: ReadonlyArray<string>
}

export const HEADER = ["ID", "STATUS", "PID", "CPU", "MEM", "PORTS", "UPTIME"] as const

export const statusColour = (t: StatusType): StatusColour =>
  t === "running"
    ? "green"
    : t === "errored" || t === "failed" || t === "unhealthy"
      ? "red"
      : isActiveStatus(t)
        ? "yellow"
        : "gray"

/** The STATUS cell: the status, `(disabled)` on a disabled daemon. */
const statusCell = (e: ApiDaemonEntry): string => `${e.status.type}${e.enabled ? "" : " (disabled)"}`

export const toRow = (e: ApiDaemonEntry): Row => {
  const running = e.pid !== null
  return {
    id: e.id.qualified,
    status: e.status.type,
    colour: statusColour(e.status.type),
    enabled: e.enabled,
    daemon: e.instance?.daemon ?? e.id.qualified,
    source: e.source,
    cells: [
      e.id.qualified,
      statusCell(e),
      running ? String(e.pid) : "-",
      running ? formatCpu(e.cpu_percent) : "-",
      running ? formatMemory(e.memory_bytes) : "-",
      e.resolved_port.join(",") || "-",
      running ? formatUptime(e.uptime_secs) : "-",
    ],
  }
}

/**
 * The rows of a listing, by ID: only those of the namespaces of `scope` when it names any
 * (`tui --namespace`, `--project`), as `list --namespace` keeps them.
 */
export const toRows = (
  entries: ReadonlyArray<ApiDaemonEntry>,
  scope: ReadonlyArray<string> = [],
): ReadonlyArray<Row> => {
  const inScope = inNamespaces(scope)
  return entries
    .filter((e) => inScope(e.id))
    .map(toRow)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/**
 * The rows `filter` matches, best first: a fuzzy match of their ID (namespace and name,
 * src/tui/fuzzy.ts), then those whose status contains it (case-insensitive); every row, in its
 * order, when it is blank.
 */
export const filterRows = (rows: ReadonlyArray<Row>, filter: string): ReadonlyArray<Row> => {
  const f = filter.trim().toLowerCase()
  if (f === "") return rows
  const byId = fuzzyFilter(rows, f, (r) => r.id)
  const matched = new Set(byId.map((r) => r.id))
  return [...byId, ...rows.filter((r) => !matched.has(r.id) && r.cells[1]!.toLowerCase().includes(f))]
}

/**
 * The first row shown so that `selected` is visible in `height` lines, moving the window as
 * little as possible from `top` (like a pager): only these rows are rendered.
 */
export const windowTop = (total: number, selected: number, height: number, top: number): number => {
  if (height <= 0 || total <= height) return 0
  let t = Math.min(Math.max(top, 0), total - height)
  if (selected < t) t = selected
  if (selected >= t + height) t = selected - height + 1
  return Math.max(0, Math.min(t, total - height))
}

/** The width of each column: its widest cell among the rows shown (IDs cut at `maxId`). */
export const columnWidths = (rows: ReadonlyArray<Row>, maxId = 40): ReadonlyArray<number> =>
  HEADER.map((h, i) =>
    Math.min(
      rows.reduce((w, r) => Math.max(w, r.cells[i]!.length), h.length),
      i === 0 ? maxId : Number.POSITIVE_INFINITY,
    ),
  )

/** `text` cut or padded to `width` columns (a cut ends with `…`). */
export const fitCell = (text: string, width: number): string =>
  text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text.padEnd(width)

/** How the table, the log pane and the fixed lines share `rows` lines of terminal. */
export interface Layout {
  readonly tableRows: number
  readonly logRows: number
}

/** Title, table header, status line and help line: 4 fixed lines; the log pane adds its own title. */
export const layout = (rows: number, logOpen: boolean): Layout => {
  // one line spare: a frame as high as the terminal makes Ink clear the screen at each render
  const free = Math.max(2, rows - 5)
  if (!logOpen) return { tableRows: free, logRows: 0 }
  const logRows = Math.max(1, Math.floor((free - 1) / 2))
  return { tableRows: Math.max(1, free - 1 - logRows), logRows }
}

/** A title followed by a rule to exactly `columns` wide (the title cut when it is wider). */
export const ruleTitle = (title: string, columns: number): string =>
  title.length >= columns ? title.slice(0, Math.max(0, columns)) : title + "─".repeat(columns - title.length)
