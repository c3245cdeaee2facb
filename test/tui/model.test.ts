import { describe, expect, it } from "vitest"
import { appendLog, MAX_LOG_LINES } from "../../src/tui/logBuffer.js"
import {
  columnWidths,
  filterRows,
  fitCell,
  layout,
  ruleTitle,
  toRow,
  toRows,
  windowTop,
} from "../../src/tui/model.js"
import { entry } from "./fixtures.js"

describe("toRow", () => {
  it("formats a running daemon's cells like `list`: PID, CPU, memory, ports, uptime", () => {
    const r = toRow(entry("app/web", "running", { resolved_port: [3000, 3001] }))
    expect(r.cells).toEqual(["app/web", "running", "4242", "1.3%", "12.0M", "3000,3001", "1m15s"])
    expect(r.colour).toBe("green")
  })
  it("shows dashes for what a stopped daemon has not, and marks a disabled one", () => {
    const r = toRow(entry("app/db", "stopped", { enabled: false }))
    expect(r.cells).toEqual(["app/db", "stopped (disabled)", "-", "-", "-", "-", "-"])
    expect(r.colour).toBe("gray")
  })
  it("colours statuses as the CLI does: errored and failed red, starting and stopping yellow", () => {
    expect(toRow(entry("a/x", "errored")).colour).toBe("red")
    expect(toRow(entry("a/x", "failed")).colour).toBe("red")
    expect(toRow(entry("a/x", "waiting")).colour).toBe("yellow")
    expect(toRow(entry("a/x", "stopping")).colour).toBe("yellow")
    expect(toRow(entry("a/x", "available")).colour).toBe("gray")
  })
})

describe("toRows and filterRows", () => {
  const rows = toRows([entry("b/worker", "errored"), entry("a/web", "running"), entry("a/db", "stopped")])
  it("sorts by ID", () => {
    expect(rows.map((r) => r.id)).toEqual(["a/db", "a/web", "b/worker"])
  })
  it("keeps the rows whose ID or status contains the filter, ignoring case", () => {
    expect(filterRows(rows, "WEB").map((r) => r.id)).toEqual(["a/web"])
    expect(filterRows(rows, "a/").map((r) => r.id)).toEqual(["a/db", "a/web"])
    expect(filterRows(rows, "errored").map((r) => r.id)).toEqual(["b/worker"])
    expect(filterRows(rows, "  ")).toBe(rows)
    expect(filterRows(rows, "nothing")).toEqual([])
  })
  it("matches the ID fuzzily, namespace included, best first, then the statuses containing the filter", () => {
    const more = toRows([
      entry("a/web", "running"),
      entry("a/db", "stopped"),
      entry("shop/web-admin", "running"),
      entry("b/worker", "errored"),
    ])
    expect(filterRows(more, "web").map((r) => r.id)).toEqual(["a/web", "shop/web-admin"])
    expect(filterRows(more, "aw").map((r) => r.id)).toEqual(["a/web"])
    expect(filterRows(more, "shwa").map((r) => r.id)).toEqual(["shop/web-admin"])
    // `run` is no ID's subsequence but the status of two daemons
    expect(filterRows(more, "run").map((r) => r.id)).toEqual(["a/web", "shop/web-admin"])
    expect(filterRows(more, "wr").map((r) => r.id)).toEqual(["b/worker"])
  })
})

describe("toRows with a scope", () => {
  const entries = [entry("app/web", "running"), entry("shop/api", "stopped"), entry("tools/x", "available")]
  it("keeps the daemons of the scope's namespaces only", () => {
    expect(toRows(entries, ["shop"]).map((r) => r.id)).toEqual(["shop/api"])
    expect(toRows(entries, ["tools", "app"]).map((r) => r.id)).toEqual(["app/web", "tools/x"])
    expect(toRows(entries, ["nowhere"])).toEqual([])
  })
  it("keeps every daemon without one", () => {
    expect(toRows(entries).map((r) => r.id)).toEqual(["app/web", "shop/api", "tools/x"])
    expect(toRows(entries, []).map((r) => r.id)).toEqual(["app/web", "shop/api", "tools/x"])
  })
  it("gives each row its configured daemon (an instance's) and file", () => {
    const [r] = toRows([
      entry("app/web.1", "running", {
        source: "/p/supervisor.toml",
        instance: { daemon: "app/web", index: 1 },
      }),
    ])
    expect([r!.daemon, r!.source]).toEqual(["app/web", "/p/supervisor.toml"])
  })
})

describe("windowTop", () => {
  it("shows everything from the top when it fits", () => {
    expect(windowTop(10, 9, 10, 3)).toBe(0)
  })
  it("moves the window only as far as the selection needs", () => {
    expect(windowTop(200, 0, 30, 0)).toBe(0)
    expect(windowTop(200, 29, 30, 0)).toBe(0)
    expect(windowTop(200, 30, 30, 0)).toBe(1)
    expect(windowTop(200, 50, 30, 40)).toBe(40)
    expect(windowTop(200, 10, 30, 40)).toBe(10)
    expect(windowTop(200, 199, 30, 0)).toBe(170)
  })
  it("never leaves blank rows at the end after the list shrank", () => {
    expect(windowTop(50, 49, 30, 170)).toBe(20)
  })
})

describe("layout", () => {
  it("keeps the frame a line lower than the terminal, and splits table and log pane", () => {
    expect(layout(45, false)).toEqual({ tableRows: 40, logRows: 0 })
    const l = layout(45, true)
    expect(l).toEqual({ tableRows: 20, logRows: 19 })
    // title + header + table + log title + log + status + help
    expect(1 + 1 + l.tableRows + 1 + l.logRows + 1 + 1).toBe(44)
  })
  it("still draws a row of each in a tiny terminal", () => {
    expect(layout(5, true)).toEqual({ tableRows: 1, logRows: 1 })
  })
})

describe("cells", () => {
  it("pads and cuts cells to their column, IDs at 40 characters at most", () => {
    expect(fitCell("web", 6)).toBe("web   ")
    expect(fitCell("a-very-long-id", 6)).toBe("a-ver…")
    const widths = columnWidths(toRows([entry(`app/${"x".repeat(60)}`, "running")]))
    expect(widths[0]).toBe(40)
    expect(widths[1]).toBe("running".length)
  })
})

describe("ruleTitle", () => {
  it("fills the width exactly: no cut-off rule, a long title cut", () => {
    expect(ruleTitle("── log: a/b ", 20)).toBe("── log: a/b ────────")
    expect(ruleTitle("── log: a/b ", 20)).toHaveLength(20)
    expect(ruleTitle("── log: a/very-long-name ", 10)).toBe("── log: a/")
    expect(ruleTitle("x", 0)).toBe("")
  })
})

describe("appendLog", () => {
  const line = (id: number, message: string) => ({
    id,
    timestamp: "2026-01-02 10:11:12",
    daemon_id: "app/web",
    message,
  })
  it("shows the time and the message without colours or control characters", () => {
    expect(appendLog([], [line(1, "\u001b[31mred\u001b[0m\tdone\r")])).toEqual([
      { text: "10:11:12 red  done", clear: false },
    ])
  })
  it("marks a clear, and keeps only the newest lines", () => {
    const many = Array.from({ length: MAX_LOG_LINES + 10 }, (_, i) => line(i, `m${i}`))
    const kept = appendLog([], [...many, { _clear: true, _gen: 2 }])
    expect(kept).toHaveLength(MAX_LOG_LINES)
    expect(kept[0]!.text).toBe("10:11:12 m11")
    expect(kept.at(-1)).toEqual({ text: "-- logs cleared --", clear: true })
  })
})
