import { describe, expect, it } from "vitest"
import { formatMemory, retryText } from "../../src/cli/actions/listing.js"
import { cutVisible, formatUptime, renderTable } from "../../src/cli/table.js"

describe("formatUptime", () => {
  it("shows seconds, minutes, hours and days, two units at most; a fresh process has 0s", () => {
    expect([0, 1, 59, 60, 61, 3599, 3600, 3660, 86399, 86400, 90000].map(formatUptime)).toEqual([
      "0s",
      "1s",
      "59s",
      "1m",
      "1m1s",
      "59m59s",
      "1h0m",
      "1h1m",
      "23h59m",
      "1d0h",
      "1d1h",
    ])
  })
})

describe("renderTable with maxWidth", () => {
  it("cuts the last column with … to fit, never below 8 characters; other columns stay whole", () => {
    const rows = [["app/web", "running", "exec node server.js --port 3000"]]
    expect(renderTable(["ID", "STATUS", "RUN"], rows, { maxWidth: 30 }).split("\n")[1]).toBe(
      "app/web  running  exec node s…",
    )
    expect(renderTable(["ID", "STATUS", "RUN"], rows, { maxWidth: 10 }).split("\n")[1]).toBe(
      "app/web  running  exec no…",
    )
    expect(renderTable(["ID", "STATUS", "RUN"], rows).split("\n")[1]).toBe(
      "app/web  running  exec node server.js --port 3000",
    )
  })
})

describe("renderTable with a shrink plan", () => {
  const header = ["ID", "STATUS", "RUN"]
  const rows = [
    [
      "app/web",
      "errored (killed: memory 161.2 MB over memory_limit 80 MB)",
      "exec node server.js --port 3000",
    ],
  ]
  const plan = [
    { column: 2, min: 12 },
    { column: 1, min: 20 },
    { column: 2, min: 8 },
  ]
  it("cuts the columns in the plan's order, each down to its minimum, so a long status leaves RUN readable", () => {
    const row = (maxWidth: number) =>
      renderTable(header, rows, { maxWidth, shrink: plan }).split("\n")[1] ?? ""
    // RUN first, down to 12
    expect(row(88)).toBe(
      "app/web  errored (killed: memory 161.2 MB over memory_limit 80 MB)  exec node server.js…",
    )
    // then STATUS, down to 20
    expect(row(60)).toBe("app/web  errored (killed: memory 161.2 MB ove…  exec node s…")
    // then RUN again, down to 8
    expect(row(39)).toBe("app/web  errored (killed: me…  exec no…")
    for (const w of [88, 60, 39]) expect(row(w).length).toBe(w)
    // nothing left to cut: the row is as narrow as the plan allows
    expect(row(20)).toBe(row(39))
  })

  it("cuts a coloured cell by its visible characters and closes its colour", () => {
    const red = "\u001b[31merrored\u001b[39m (killed: memory)"
    expect(cutVisible(red, 6)).toBe("\u001b[31merror…\u001b[0m")
    expect(cutVisible(red, 12)).toBe("\u001b[31merrored\u001b[39m (ki…")
    expect(cutVisible(red, 100)).toBe(red)
  })
})

describe("list's cells", () => {
  it("memory in K, M (one decimal below 100) and G; a pending retry as retry N/M in Ns", () => {
    expect([512, 1_800_000, 150 * 1048576, 3 * 1073741824].map(formatMemory)).toEqual([
      "1K",
      "1.7M",
      "150M",
      "3.0G",
    ])
    expect(retryText({ retry: 2, of: 3, due_in_ms: 3001 })).toBe("retry 2/3 in 4s")
    expect(retryText({ retry: 7, of: null, due_in_ms: 0 })).toBe("retry 7 in 0s")
  })
})
