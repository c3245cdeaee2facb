import { describe, expect, it } from "vitest"
import { formatMemory, retryText } from "../../src/cli/actions/listing.js"
import { formatUptime, renderTable } from "../../src/cli/table.js"

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
