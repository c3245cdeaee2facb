/**
 * docs/states.md's "Disabled daemons" table is what the CLI answers: each row is played against a
 * real supervisor (a daemon running or stopped, then disabled; the command; its answer, exit
 * status and the daemon's state afterwards).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox } from "./harness.js"

const doc = readFileSync(join(__dirname, "../../docs/states.md"), "utf8")

interface Row {
  readonly state: "running" | "stopped"
  readonly command: ReadonlyArray<string>
  readonly answer: string
  readonly exit: number
  readonly after: string
}

/** A cell's code span, `x` or `` x `` (which may hold backticks). */
const code = (cell: string) => cell.trim().replace(/^(`+) ?(.*?) ?\1$/, "$2")

const rows: ReadonlyArray<Row> = (() => {
  const section = doc.slice(doc.indexOf("### Disabled daemons"))
  const table = section.slice(section.indexOf("| The daemon")).split("\n\n")[0] ?? ""
  return table
    .split("\n")
    .slice(2)
    .map((line) => {
      const cells = line.split(/ \| /).map((c) => c.replace(/^\| |\|$/g, "").trim())
      const [daemon = "", command = "", answer = "", exit = "", after = ""] = cells
      return {
        state: daemon.startsWith("running") ? "running" : "stopped",
        command: code(command).split(" ").slice(1),
        answer: code(answer),
        exit: Number(exit),
        after,
      } as const
    })
})()

const TOML = (names: ReadonlyArray<string>) =>
  names.map((n) => `[daemons.${n}]\nrun = "exec sleep 300"\nready_delay = 0.2\n`).join("\n")

let sb: DaemonSandbox
let app = ""

beforeAll(() => {
  sb = makeDaemonSandbox()
  app = sb.project("shop", TOML(rows.map((_, i) => `d${i}`)))
})
afterAll(() => sb.destroy())

describe("docs/states.md: disabled daemons", () => {
  it("has the four rows", () => {
    expect(rows.map((r) => `${r.state} ${r.command[0]}`)).toEqual([
      "running start",
      "running restart",
      "stopped start",
      "stopped restart",
    ])
  })

  it.each(rows.map((row, i) => [`${row.state}: ${row.command.join(" ")}`, row, i] as const))(
    "%s answers as documented",
    async (_, row, i) => {
      const id = `shop/d${i}`
      expect(sb.cli(["start", id], app).status).toBe(0)
      if (row.state === "stopped") expect(sb.cli(["stop", id], app).status).toBe(0)
      expect(sb.cli(["disable", id], app).status).toBe(0)
      const pid = (await daemonEntry(sb.stateDir, id))?.pid ?? null
      const r = sb.cli(
        row.command.map((w) => (w === "ID" ? id : w)),
        app,
      )
      const expected = row.answer.replaceAll("ID", id).replace("N", String(pid))
      expect(`${r.stdout}${r.stderr}`.trim()).toBe(expected)
      expect(r.status).toBe(row.exit)
      // Listings show a disabled daemon that does not run as `disabled`.
      const entry = await daemonEntry(sb.stateDir, id)
      expect(entry?.status.type).toBe(row.after === "running" ? "running" : "disabled")
      expect(entry?.pid).toBe(row.after === "running" ? pid : null)
    },
    30_000,
  )
})
