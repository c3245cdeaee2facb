// Keys -> actions, and the dashboard's UI state (selection, marks, filter, panes) as a pure reducer.
import { filterRows, type Row, windowTop } from "./model.js"

/** The daemon actions of the keys, sent as commands (`POST /api/commands`, src/tui/connection.ts). */
export type Verb = "start" | "stop" | "restart" | "enable" | "disable"

export type Action =
  | { readonly _tag: "Move"; readonly by: number }
  | { readonly _tag: "MoveTo"; readonly to: "first" | "last" }
  | { readonly _tag: "Control"; readonly verb: Verb }
  | { readonly _tag: "Attach" }
  | { readonly _tag: "ToggleMark" }
  | { readonly _tag: "MarkAll" }
  | { readonly _tag: "ClearMarks" }
  | { readonly _tag: "Graph" }
  | { readonly _tag: "ToggleLog" }
  | { readonly _tag: "FilterStart" }
  | { readonly _tag: "FilterType"; readonly text: string }
  | { readonly _tag: "FilterBackspace" }
  | { readonly _tag: "FilterDone" }
  | { readonly _tag: "FilterCancel" }
  | { readonly _tag: "Help" }
  | { readonly _tag: "CloseHelp" }
  | { readonly _tag: "Quit" }
  | { readonly _tag: "None" }

/** What the dashboard reads of a key press (a subset of Ink's `Key`). */
export interface KeyInfo {
  readonly upArrow: boolean
  readonly downArrow: boolean
  readonly pageUp: boolean
  readonly pageDown: boolean
  readonly home: boolean
  readonly end: boolean
  readonly return: boolean
  readonly escape: boolean
  readonly ctrl: boolean
  readonly backspace: boolean
  readonly delete: boolean
}

export type Mode = "table" | "filter" | "help" | "graph"

const VERBS: Readonly<Record<string, Verb>> = {
  s: "start",
  x: "stop",
  S: "stop",
  r: "restart",
  e: "enable",
  d: "disable",
}

/** The action of a key in `mode`; `page` is how many rows PgUp/PgDn move. */
export const keyAction = (mode: Mode, input: string, key: KeyInfo, page: number): Action => {
  if (key.ctrl && input === "c") return { _tag: "Quit" }
  if (mode === "help" || mode === "graph") return input === "q" ? { _tag: "Quit" } : { _tag: "CloseHelp" }
  if (mode === "filter") {
    if (key.return) return { _tag: "FilterDone" }
    if (key.escape) return { _tag: "FilterCancel" }
    if (key.backspace || key.delete) return { _tag: "FilterBackspace" }
    if (key.ctrl || input === "" || /[\x00-\x1f]/.test(input)) return { _tag: "None" }
    return { _tag: "FilterType", text: input }
  }
  if (key.ctrl && input === "a") return { _tag: "MarkAll" }
  if (input === " ") return { _tag: "ToggleMark" }
  if (input === "c") return { _tag: "ClearMarks" }
  if (input === "t") return { _tag: "Graph" }
  if (key.upArrow || input === "k") return { _tag: "Move", by: -1 }
  if (key.downArrow || input === "j") return { _tag: "Move", by: 1 }
  if (key.pageUp) return { _tag: "Move", by: -Math.max(1, page) }
  if (key.pageDown) return { _tag: "Move", by: Math.max(1, page) }
  if (key.home || input === "g") return { _tag: "MoveTo", to: "first" }
  if (key.end || input === "G") return { _tag: "MoveTo", to: "last" }
  if (key.return || input === "l") return { _tag: "ToggleLog" }
  if (input === "/") return { _tag: "FilterStart" }
  if (input === "?") return { _tag: "Help" }
  if (input === "q") return { _tag: "Quit" }
  if (input === "a") return { _tag: "Attach" }
  if (key.escape) return { _tag: "FilterCancel" }
  const verb = VERBS[input]
  return verb === undefined ? { _tag: "None" } : { _tag: "Control", verb }
}

/**
 * The UI's state: the selection is a daemon ID, so it stays on its daemon when rows move; the
 * marked daemons (Space) are IDs too, in the order marked, kept while a filter hides them.
 */
export interface UiState {
  readonly mode: Mode
  readonly filter: string
  readonly selected: string | undefined
  readonly marked: ReadonlyArray<string>
  readonly top: number
  readonly logOpen: boolean
}

export const initialUi: UiState = {
  mode: "table",
  filter: "",
  selected: undefined,
  marked: [],
  top: 0,
  logOpen: true,
}

/** The rows shown and the selected one's index (the first row when the selected is gone). */
export const selection = (rows: ReadonlyArray<Row>, ui: UiState) => {
  const shown = filterRows(rows, ui.filter)
  const found = shown.findIndex((r) => r.id === ui.selected)
  return { shown, index: shown.length === 0 ? -1 : Math.max(0, found) }
}

/**
 * What the table shows of `rows` under `ui` in `height` rows (the rows of its window, the
 * selection, the title's counts), as one string; none outside the table (help, graph). A new
 * listing with the same view changes nothing on screen: the dashboard does not draw it.
 */
export const tableView = (rows: ReadonlyArray<Row>, ui: UiState, height: number): string | undefined => {
  if (ui.mode === "help" || ui.mode === "graph") return undefined
  const { shown, index } = selection(rows, ui)
  const top = windowTop(shown.length, Math.max(index, 0), height, ui.top)
  const marked = new Set(ui.marked)
  const markedShown = rows.filter((r) => marked.has(r.id)).length
  return JSON.stringify([rows.length, shown.length, index, top, markedShown, shown.slice(top, top + height)])
}

/**
 * The daemons a key's action applies to: the marked ones still listed (in the table's order),
 * else the selected one; none when the table is empty.
 */
export const targets = (rows: ReadonlyArray<Row>, ui: UiState): ReadonlyArray<string> => {
  const marked = new Set(ui.marked)
  const listed = rows.filter((r) => marked.has(r.id)).map((r) => r.id)
  if (listed.length > 0) return listed
  const { shown, index } = selection(rows, ui)
  return index >= 0 ? [shown[index]!.id] : []
}

/** The state after `action` (Control, Attach and Quit are effects: App runs them; the state is unchanged). */
export const reduce = (ui: UiState, action: Action, rows: ReadonlyArray<Row>, height: number): UiState => {
  const { shown, index } = selection(rows, ui)
  const select = (i: number): UiState => {
    if (shown.length === 0) return ui
    const to = Math.min(Math.max(i, 0), shown.length - 1)
    return { ...ui, selected: shown[to]!.id, top: windowTop(shown.length, to, height, ui.top) }
  }
  switch (action._tag) {
    case "Move":
      return select(index + action.by)
    case "MoveTo":
      return select(action.to === "first" ? 0 : shown.length - 1)
    case "ToggleLog":
      return { ...ui, logOpen: !ui.logOpen }
    case "FilterStart":
      return { ...ui, mode: "filter" }
    case "FilterType":
      return { ...ui, filter: ui.filter + action.text, top: 0 }
    case "FilterBackspace":
      return { ...ui, filter: ui.filter.slice(0, -1), top: 0 }
    case "FilterDone":
      return { ...ui, mode: "table" }
    case "FilterCancel":
      return { ...ui, mode: "table", filter: "", top: 0 }
    case "ToggleMark": {
      const id = index >= 0 ? shown[index]!.id : undefined
      if (id === undefined) return ui
      return {
        ...ui,
        selected: id,
        marked: ui.marked.includes(id) ? ui.marked.filter((m) => m !== id) : [...ui.marked, id],
      }
    }
    case "MarkAll":
      return { ...ui, marked: [...new Set([...ui.marked, ...shown.map((r) => r.id)])] }
    case "ClearMarks":
      return { ...ui, marked: [] }
    case "Graph":
      return index >= 0 ? { ...ui, mode: "graph", selected: shown[index]!.id } : ui
    case "Help":
      return { ...ui, mode: "help" }
    case "CloseHelp":
      return { ...ui, mode: "table" }
    default:
      return ui
  }
}
