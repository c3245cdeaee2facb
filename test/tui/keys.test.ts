import { describe, expect, it } from "vitest"
import {
  initialUi,
  type KeyInfo,
  keyAction,
  reduce,
  selection,
  tableView,
  targets,
  type UiState,
} from "../../src/tui/keys.js"
import { toRows } from "../../src/tui/model.js"
import { entry } from "./fixtures.js"

const none: KeyInfo = {
  upArrow: false,
  downArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  backspace: false,
  delete: false,
}
const key = (k: Partial<KeyInfo>): KeyInfo => ({ ...none, ...k })

describe("keyAction in the table", () => {
  const act = (input: string, k: Partial<KeyInfo> = {}) => keyAction("table", input, key(k), 20)
  it("moves with the arrows, j/k, PgUp/PgDn by a page, Home/End and g/G", () => {
    expect(act("", { downArrow: true })).toEqual({ _tag: "Move", by: 1 })
    expect(act("j")).toEqual({ _tag: "Move", by: 1 })
    expect(act("", { upArrow: true })).toEqual({ _tag: "Move", by: -1 })
    expect(act("k")).toEqual({ _tag: "Move", by: -1 })
    expect(act("", { pageDown: true })).toEqual({ _tag: "Move", by: 20 })
    expect(act("", { pageUp: true })).toEqual({ _tag: "Move", by: -20 })
    expect(act("", { home: true })).toEqual({ _tag: "MoveTo", to: "first" })
    expect(act("G")).toEqual({ _tag: "MoveTo", to: "last" })
  })
  it("maps s, x/S, r, e, d to the daemon actions", () => {
    expect(["s", "x", "S", "r", "e", "d"].map((i) => act(i))).toEqual(
      ["start", "stop", "stop", "restart", "enable", "disable"].map((verb) => ({ _tag: "Control", verb })),
    )
  })
  it("has keys for the log pane, the filter, the help and quitting", () => {
    expect(act("l")).toEqual({ _tag: "ToggleLog" })
    expect(act("\r", { return: true })).toEqual({ _tag: "ToggleLog" })
    expect(act("/")).toEqual({ _tag: "FilterStart" })
    expect(act("?")).toEqual({ _tag: "Help" })
    expect(act("q")).toEqual({ _tag: "Quit" })
    expect(act("c", { ctrl: true })).toEqual({ _tag: "Quit" })
    expect(act("z")).toEqual({ _tag: "None" })
  })
  it("marks with Space, marks all with Ctrl-A, clears with c, shows the dependencies with t", () => {
    expect(act(" ")).toEqual({ _tag: "ToggleMark" })
    expect(act("a", { ctrl: true })).toEqual({ _tag: "MarkAll" })
    expect(act("a")).toEqual({ _tag: "Attach" })
    expect(act("c")).toEqual({ _tag: "ClearMarks" })
    expect(act("t")).toEqual({ _tag: "Graph" })
  })
})

describe("keyAction in the filter and the help", () => {
  it("types letters (q and s too) into the filter; Enter keeps it, Esc clears it", () => {
    const f = (input: string, k: Partial<KeyInfo> = {}) => keyAction("filter", input, key(k), 20)
    expect(f("q")).toEqual({ _tag: "FilterType", text: "q" })
    expect(f("s")).toEqual({ _tag: "FilterType", text: "s" })
    expect(f("", { backspace: true })).toEqual({ _tag: "FilterBackspace" })
    expect(f("\r", { return: true })).toEqual({ _tag: "FilterDone" })
    expect(f("", { escape: true })).toEqual({ _tag: "FilterCancel" })
    expect(f("c", { ctrl: true })).toEqual({ _tag: "Quit" })
  })
  it("closes the help on any key but q, which quits", () => {
    expect(keyAction("help", "x", none, 20)).toEqual({ _tag: "CloseHelp" })
    expect(keyAction("help", "q", none, 20)).toEqual({ _tag: "Quit" })
  })
  it("leaves the graph view on any key but q, which quits", () => {
    expect(keyAction("graph", "t", none, 20)).toEqual({ _tag: "CloseHelp" })
    expect(keyAction("graph", " ", none, 20)).toEqual({ _tag: "CloseHelp" })
    expect(keyAction("graph", "q", none, 20)).toEqual({ _tag: "Quit" })
  })
})

describe("reduce", () => {
  const rows = toRows(
    Array.from({ length: 100 }, (_, i) => entry(`app/d${String(i).padStart(3, "0")}`, "running")),
  )
  const ids = (ui: UiState) => selection(rows, ui).shown.map((r) => r.id)
  const run = (ui: UiState, ...actions: Parameters<typeof reduce>[1][]) =>
    actions.reduce((u, a) => reduce(u, a, rows, 10), ui)
  it("starts on the first row, moves and scrolls the window with the selection", () => {
    expect(selection(rows, initialUi).index).toBe(0)
    const ui = run(initialUi, { _tag: "Move", by: 15 })
    expect(ui.selected).toBe("app/d015")
    expect(ui.top).toBe(6)
    const end = run(ui, { _tag: "MoveTo", to: "last" })
    expect(end).toMatchObject({ selected: "app/d099", top: 90 })
    expect(run(end, { _tag: "Move", by: 5 }).selected).toBe("app/d099")
    expect(run(end, { _tag: "MoveTo", to: "first" })).toMatchObject({ selected: "app/d000", top: 0 })
  })
  it("filters as one types, keeps the filter on Enter, clears it on Esc", () => {
    const typed = run(initialUi, { _tag: "FilterStart" }, { _tag: "FilterType", text: "d05" })
    expect(typed.mode).toBe("filter")
    // fuzzy: d050-d059 (d05 together) first, then d005, d015, ... (d0 ... 5)
    expect(ids(typed)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `app/d05${i}`),
      ...[0, 1, 2, 3, 4, 6, 7, 8, 9].map((i) => `app/d0${i}5`),
    ])
    const kept = run(typed, { _tag: "FilterDone" })
    expect(kept).toMatchObject({ mode: "table", filter: "d05" })
    const back = run(kept, { _tag: "FilterStart" }, { _tag: "FilterBackspace" })
    expect(back.filter).toBe("d0")
    expect(run(back, { _tag: "FilterCancel" })).toMatchObject({ mode: "table", filter: "" })
  })
  it("keeps the selection on its daemon when the filter hides rows above it", () => {
    const ui = run(initialUi, { _tag: "Move", by: 51 })
    expect(ui.selected).toBe("app/d051")
    const filtered = run(ui, { _tag: "FilterStart" }, { _tag: "FilterType", text: "5" })
    const { shown, index } = selection(rows, filtered)
    expect(shown[index]!.id).toBe("app/d051")
  })
  it("marks and unmarks the selected daemon with Space; the actions then target the marked ones", () => {
    expect(targets(rows, initialUi)).toEqual(["app/d000"])
    const one = run(initialUi, { _tag: "Move", by: 2 }, { _tag: "ToggleMark" })
    expect(one.marked).toEqual(["app/d002"])
    const two = run(one, { _tag: "Move", by: 3 }, { _tag: "ToggleMark" }, { _tag: "Move", by: 1 })
    expect(two.marked).toEqual(["app/d002", "app/d005"])
    // the cursor is on d006, but the marked ones are acted on, in the table's order
    expect(targets(rows, two)).toEqual(["app/d002", "app/d005"])
    const back = run(two, { _tag: "Move", by: -1 }, { _tag: "ToggleMark" })
    expect(back.marked).toEqual(["app/d002"])
    expect(run(back, { _tag: "ClearMarks" }).marked).toEqual([])
    expect(targets(rows, run(back, { _tag: "ClearMarks" }))).toEqual(["app/d005"])
  })
  it("marks every daemon the filter shows with Ctrl-A, and keeps marks the filter hides", () => {
    const filtered = run(
      initialUi,
      { _tag: "FilterStart" },
      { _tag: "FilterType", text: "d09" },
      {
        _tag: "FilterDone",
      },
    )
    const all = run(filtered, { _tag: "MarkAll" })
    expect(all.marked).toHaveLength(ids(filtered).length)
    expect(new Set(all.marked)).toEqual(new Set(ids(filtered)))
    const cleared = run(all, { _tag: "FilterCancel" })
    expect(cleared.marked).toEqual(all.marked)
    expect(targets(rows, cleared)).toEqual([...all.marked].sort())
  })
  it("acts only on marked daemons still listed (in the scope): else on the selected one", () => {
    const ui: UiState = { ...initialUi, marked: ["app/d003", "gone/x"] }
    expect(targets(rows, ui)).toEqual(["app/d003"])
    expect(targets(rows, { ...initialUi, marked: ["gone/x"] })).toEqual(["app/d000"])
    expect(targets([], initialUi)).toEqual([])
  })
  it("opens the graph view on the selected daemon", () => {
    expect(run(initialUi, { _tag: "Move", by: 4 }, { _tag: "Graph" })).toMatchObject({
      mode: "graph",
      selected: "app/d004",
    })
    expect(reduce(initialUi, { _tag: "Graph" }, [], 10).mode).toBe("table")
  })
  it("toggles the log pane and the help", () => {
    expect(run(initialUi, { _tag: "ToggleLog" }).logOpen).toBe(false)
    expect(run(initialUi, { _tag: "Help" }).mode).toBe("help")
    expect(run(initialUi, { _tag: "Help" }, { _tag: "CloseHelp" }).mode).toBe("table")
  })
})

describe("tableView: what the table shows, so that a listing that changes nothing on screen is not drawn", () => {
  const listing = (changed?: { readonly at: number; readonly to: "stopped" | "running" }) =>
    toRows(
      Array.from({ length: 30 }, (_, i) =>
        entry(`app/d${String(i).padStart(2, "0")}`, changed?.at === i ? changed.to : "running"),
      ),
      [],
    )
  const ui: UiState = { ...initialUi, selected: "app/d00" }
  it("is the same for a change below the window, and differs for one inside it", () => {
    const before = tableView(listing(), ui, 10)
    expect(before).toBeDefined()
    expect(tableView(listing({ at: 25, to: "stopped" }), ui, 10)).toBe(before)
    expect(tableView(listing({ at: 3, to: "stopped" }), ui, 10)).not.toBe(before)
    // scrolled down to it, the same change is on screen
    const atEnd: UiState = { ...ui, selected: "app/d29" }
    expect(tableView(listing({ at: 25, to: "stopped" }), atEnd, 10)).not.toBe(tableView(listing(), atEnd, 10))
  })
  it("differs when the title's counts change: a daemon more, a marked one gone", () => {
    const before = tableView(listing(), ui, 10)
    expect(tableView([...listing(), ...toRows([entry("app/zz", "running")], [])], ui, 10)).not.toBe(before)
    const marked: UiState = { ...ui, marked: ["app/d25"] }
    // as many daemons, but the marked one gone (its row below the window): the title's count changes
    const without = [
      ...listing().slice(0, 25),
      ...toRows([entry("app/zz", "running")], []),
      ...listing().slice(26),
    ]
    expect(without).toHaveLength(30)
    expect(tableView(without, marked, 10)).not.toBe(tableView(listing(), marked, 10))
  })
  it("is none in help and in the graph: those screens are always drawn", () => {
    expect(tableView(listing(), { ...ui, mode: "help" }, 10)).toBeUndefined()
    expect(tableView(listing(), { ...ui, mode: "graph" }, 10)).toBeUndefined()
  })
})
