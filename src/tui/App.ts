import { Effect, Fiber } from "effect"
import { Box, type Key, Text, useApp, useInput, useStdout } from "ink"
import { createElement as h, useCallback, useEffect, useMemo, useRef, useState } from "react"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { control, followLog, listDaemons, liveListing, type TuiRuntime } from "./connection.js"
import { GraphScreen } from "./graphView.js"
import { HelpScreen, helpLine } from "./help.js"
import {
  initialUi,
  keyAction,
  reduce,
  selection,
  tableView,
  targets,
  type UiState,
  type Verb,
} from "./keys.js"
import { appendLog, type LogLine } from "./logBuffer.js"
import { columnWidths, fitCell, HEADER, layout, type Row, ruleTitle, toRows, windowTop } from "./model.js"

export interface AppProps {
  readonly runtime: TuiRuntime
  readonly intervalMs: number
  /** The namespaces shown (`--namespace`, `--project`); every daemon when empty. */
  readonly scope: ReadonlyArray<string>
  /** The UI and status line to start with: the dashboard comes back from an attach as it was left. */
  readonly ui?: UiState
  readonly status?: Status
  /** `a`: the dashboard ends, to give the terminal to an attach session on `id` (src/tui/main.ts). */
  readonly onAttach: (id: string, ui: UiState) => void
}

/** What each verb says once done: `started proj/api`. */
const DONE: Readonly<Record<Verb, string>> = {
  start: "started",
  stop: "stopped",
  restart: "restarted",
  enable: "enabled",
  disable: "disabled",
}

export type Status = { readonly text: string; readonly tone: "info" | "ok" | "error" }

/** The terminal's size, followed on resize. */
const useSize = () => {
  const { stdout } = useStdout()
  const [size, setSize] = useState(() => ({ rows: stdout.rows || 24, columns: stdout.columns || 80 }))
  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows || 24, columns: stdout.columns || 80 })
    stdout.on("resize", onResize)
    return () => {
      stdout.off("resize", onResize)
    }
  }, [stdout])
  return size
}

/** At most one new table this often: a burst of restarts redraws it ten times a second, not per event. */
const ROWS_EVERY_MS = 100

/**
 * Rows of the listing, set only when a cell changed (an unchanged listing renders nothing), and
 * at most once per ROWS_EVERY_MS: a change after a quiet moment shows at once, the changes of a
 * burst together at its next tick.
 */
const useRows = (
  runtime: TuiRuntime,
  intervalMs: number,
  scope: ReadonlyArray<string>,
  /** Whether two listings look the same on screen now (src/tui/keys.ts `tableView`). */
  sameView: { readonly current: (a: ReadonlyArray<Row>, b: ReadonlyArray<Row>) => boolean },
) => {
  // the latest rows, read at each drawing; a new version draws them (a render reads the ref)
  const rows = useRef<ReadonlyArray<Row> | undefined>(undefined)
  const [, setVersion] = useState(0)
  const [down, setDown] = useState<string | undefined>(undefined)
  const last = useRef("")
  const shownAt = useRef(0)
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const latest = useRef<ReadonlyArray<ApiDaemonEntry>>([])
  const flush = useCallback(() => {
    pending.current = undefined
    shownAt.current = Date.now()
    const next = toRows(latest.current, scope)
    const key = JSON.stringify(next)
    if (key === last.current) return
    last.current = key
    const before = rows.current
    rows.current = next
    // a change off screen (a row outside the window) is kept for the next drawing, not drawn now
    if (before === undefined || !sameView.current(before, next)) setVersion((v) => v + 1)
  }, [scope, sameView])
  const apply = useCallback(
    (entries: ReadonlyArray<ApiDaemonEntry>) => {
      latest.current = entries
      setDown(undefined)
      if (pending.current !== undefined) return
      const wait = shownAt.current + ROWS_EVERY_MS - Date.now()
      if (wait <= 0) flush()
      else pending.current = setTimeout(flush, wait)
    },
    [flush],
  )
  useEffect(() => () => clearTimeout(pending.current), [])
  useEffect(() => {
    const fiber = runtime.runFork(liveListing(intervalMs, apply, setDown))
    return () => {
      runtime.runFork(Fiber.interrupt(fiber))
    }
  }, [runtime, intervalMs, apply])
  const refresh = useCallback(() => {
    runtime.runFork(
      listDaemons.pipe(
        Effect.tap((e) => Effect.sync(() => apply(e))),
        Effect.ignore,
      ),
    )
  }, [runtime, apply])
  /** A daemon's status in the latest listing, in the scope or not (a dependency of another project's). */
  const statusOf = useCallback(
    (id: string) => latest.current.find((e) => e.id.qualified === id)?.status.type ?? "available",
    [],
  )
  return { rows: rows.current, down, refresh, statusOf }
}

/** The selected daemon's log, followed while the pane is open (a short pause while selecting). */
const useLog = (runtime: TuiRuntime, id: string | undefined, open: boolean) => {
  const [lines, setLines] = useState<ReadonlyArray<LogLine>>([])
  useEffect(() => {
    setLines([])
    if (!open || id === undefined) return
    let fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
    const timer = setTimeout(() => {
      fiber = runtime.runFork(
        followLog(
          id,
          100,
          () => setLines([]),
          (items) => setLines((prev) => appendLog(prev, items)),
        ),
      )
    }, 150)
    return () => {
      clearTimeout(timer)
      if (fiber !== undefined) runtime.runFork(Fiber.interrupt(fiber))
    }
  }, [runtime, id, open])
  return lines
}

/** `app/web`, or `2 daemons (app/db, app/web)`: what an action is about. */
const named = (ids: ReadonlyArray<string>) =>
  ids.length === 1 ? ids[0]! : `${ids.length} daemons (${ids.join(", ")})`

/** The dashboard: title, table, log pane, status line, help line. */

export const App = ({ runtime, intervalMs, scope, ui: startUi, status: startStatus, onAttach }: AppProps) => {
  const app = useApp()
  const { rows: terminalRows, columns } = useSize()
  const sameView = useRef((_a: ReadonlyArray<Row>, _b: ReadonlyArray<Row>): boolean => false)
  const { rows, down, refresh, statusOf } = useRows(runtime, intervalMs, scope, sameView)
  const [ui, setUi] = useState(startUi ?? initialUi)
  const [status, setStatus] = useState<Status>(startStatus ?? { text: "connecting…", tone: "info" })
  const all = rows ?? []
  const { shown, index } = selection(all, ui)
  const selected = index >= 0 ? shown[index] : undefined
  const { tableRows, logRows } = layout(terminalRows, ui.logOpen)
  sameView.current = (a, b) => {
    const view = tableView(a, ui, tableRows)
    return view !== undefined && view === tableView(b, ui, tableRows)
  }
  const logLines = useLog(runtime, selected?.id, ui.logOpen)

  useEffect(() => {
    if (rows !== undefined && status.text === "connecting…") setStatus({ text: "", tone: "info" })
  }, [rows, status.text])
  // Ink calls the input handler of an earlier render until its effect registers the new one, after
  // the frame is drawn: a key typed in between reads the state of the latest render from here.
  const latestView = useRef({ ui, all, tableRows })
  latestView.current = { ui, all, tableRows }

  // the status line tells the result of the latest action: an earlier one that ends later is not shown
  const latest = useRef(0)
  const act = (verb: Verb, ids: ReadonlyArray<string>) => {
    const n = ++latest.current
    const id = named(ids)
    setStatus({ text: `${verb} ${id}…`, tone: "info" })
    runtime
      .runPromise(control(verb, ids))
      .then((r) =>
        n !== latest.current
          ? undefined
          : setStatus(
              r.ok
                ? { text: `${DONE[verb]} ${id}`, tone: "ok" }
                : { text: `${verb} ${id} failed: ${r.error ?? "unknown error"}`, tone: "error" },
            ),
      )
      .finally(refresh)
  }

  // Keys typed faster than a render (or sent at once, as by tmux) arrive as one string: one action per key.
  const apply = (presses: ReadonlyArray<readonly [string, Key]>) => {
    const { all, tableRows } = latestView.current
    let u = latestView.current.ui
    for (const [input, key] of presses) {
      const keys =
        input.length > 1 && !key.ctrl && !key.meta && !input.startsWith("\u001b") ? [...input] : [input]
      for (const k of keys) {
        // an Enter among them (`/web` then Enter, sent at once) is Enter, not a control character
        const action = keyAction(
          u.mode,
          k,
          keys.length > 1 && k === "\r" ? { ...key, return: true } : key,
          tableRows,
        )
        if (action._tag === "Quit") return app.exit()
        if (action._tag === "Control") {
          // the marked daemons when there are any (in the scope: the rows), else the selected one
          const ids = targets(all, u)
          if (ids.length === 0) setStatus({ text: "no daemon selected", tone: "error" })
          else act(action.verb, ids)
        } else if (action._tag === "Attach") {
          const sel = selection(all, u)
          const target = sel.index >= 0 ? sel.shown[sel.index] : undefined
          if (target === undefined) setStatus({ text: "no daemon selected", tone: "error" })
          else {
            // the keys after `a` are the attached daemon's: this dashboard ends here
            onAttach(target.id, u)
            return app.exit()
          }
        } else u = reduce(u, action, all, tableRows)
      }
    }
    latestView.current = { ...latestView.current, ui: u }
    setUi(u)
  }

  // Keys typed before the first listing (the terminal holds them until the dashboard reads it)
  // would move a selection over no rows: they wait, and are applied in order once the rows are in
  // (or the supervisor is found down, so that q still quits). Ctrl-C never waits.
  const waiting = rows === undefined && down === undefined
  const early = useRef<Array<readonly [string, Key]>>([])
  useInput((input, key) => {
    if (waiting && !(key.ctrl && input === "c")) early.current.push([input, key])
    else apply([...early.current.splice(0), [input, key]])
  })
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the wait ends, with this render's rows
  useEffect(() => {
    if (waiting || early.current.length === 0) return
    apply(early.current.splice(0))
  }, [waiting])

  const top = windowTop(shown.length, Math.max(index, 0), tableRows, ui.top)
  const visible = shown.slice(top, top + tableRows)
  const widths = useMemo(() => columnWidths(visible), [visible])
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => fitCell(c, widths[i]!)).join("  ")
  const marked = new Set(ui.marked)
  const markedShown = all.filter((r) => marked.has(r.id)).length
  const title = [
    "supervisor",
    ...(scope.length === 0 ? [] : [`${scope.length === 1 ? "namespace" : "namespaces"} ${scope.join(", ")}`]),
    `${all.length} daemon${all.length === 1 ? "" : "s"}`,
    ...(ui.filter ? [`${shown.length} match "${ui.filter}"`] : []),
    ...(markedShown > 0 ? [`${markedShown} marked`] : []),
    ...(shown.length > tableRows ? [`rows ${top + 1}-${top + visible.length}`] : []),
  ].join(" · ")

  const body =
    ui.mode === "help"
      ? h(HelpScreen, { height: terminalRows - 3 })
      : ui.mode === "graph"
        ? h(GraphScreen, { row: selected, statusOf, height: terminalRows - 3 })
        : h(
            Box,
            { flexDirection: "column" },
            h(Text, { bold: true, wrap: "truncate-end" }, `  ${line(HEADER)}`),
            ...Array.from({ length: tableRows }, (_, i) => {
              const r = visible[i]
              if (r === undefined)
                return h(
                  Text,
                  { key: `empty${i}` },
                  i > 0 || rows === undefined
                    ? " "
                    : all.length === 0
                      ? scope.length === 0
                        ? "  (no daemons)"
                        : `  (no daemons in ${scope.join(", ")})`
                      : "  (no daemon matches the filter)",
                )
              const isSel = r.id === selected?.id
              const cells = r.cells.map((c, j) => fitCell(c, widths[j]!))
              return h(
                Text,
                { key: r.id, inverse: isSel, wrap: "truncate-end" },
                // the cursor, then the mark column (Space)
                isSel ? ">" : " ",
                marked.has(r.id) ? "*" : " ",
                cells[0],
                "  ",
                h(Text, { color: r.colour }, cells[1]),
                "  ",
                cells.slice(2).join("  "),
              )
            }),
            ...(ui.logOpen
              ? [
                  h(
                    Text,
                    { key: "logtitle", bold: true, wrap: "truncate-end" },
                    ruleTitle(`── log: ${selected?.id ?? "(none)"} `, columns),
                  ),
                  ...Array.from({ length: logRows }, (_, i) => {
                    const l = logLines[logLines.length - logRows + i]
                    return h(
                      Text,
                      { key: `log${i}`, wrap: "truncate-end", dimColor: l?.clear === true },
                      l === undefined ? " " : l.text,
                    )
                  }),
                ]
              : []),
          )

  const statusText = down !== undefined ? `${down}: retrying every ${intervalMs / 1000}s` : status.text
  const tone = down !== undefined ? "error" : status.tone
  return h(
    Box,
    { flexDirection: "column", width: columns },
    h(Text, { bold: true, wrap: "truncate-end" }, title),
    body,
    h(
      Text,
      { ...(tone === "info" ? {} : { color: tone === "error" ? "red" : "green" }), wrap: "truncate-end" },
      statusText || " ",
    ),
    h(Text, { dimColor: ui.mode !== "filter", wrap: "truncate-end" }, helpLine(ui.mode, ui.filter)),
  )
}
