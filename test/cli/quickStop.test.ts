/**
 * The quick client of `supervisor stop` (src/quick/stop.ts): which arguments it takes on, and what
 * it does with each answer of a (fake) supervisor on a real Unix socket.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import { readCliTree } from "../../src/cli/usageSpec/effectCli.js"
import { parseStopArgs } from "../../src/domain/quickForms.js"
import { quickStop } from "../../src/quick/stop.js"
import { makeFakeSupervisor } from "./fakeSupervisor.js"

describe("parseStopArgs", () => {
  it("takes on only flags stop has, by the names the command tree gives them", () => {
    const stop = readCliTree(rootCommand).subcommands.find((c) => c.name === "stop")!
    const names = stop.flags.flatMap((f) => [...f.long.map((l) => `--${l}`), ...f.short.map((s) => `-${s}`)])
    for (const flag of ["--all", "-a", "--quiet", "-q", "--json", "--group"]) expect(names).toContain(flag)
  })

  const none = { ids: [], all: false, group: null, quiet: false, json: false }
  it.each([
    [["web"], { ...none, ids: ["web"] }],
    [["--all", "--quiet"], { ...none, all: true, quiet: true }],
    [["-a", "--json"], { ...none, all: true, json: true }],
    [["--group=backend"], { ...none, group: "backend" }],
  ])("%j is taken on", (args, expected) => {
    expect(parseStopArgs(args)).toEqual(expected)
  })

  it.each([[[]], [["-q"]], [["web", "--force"]], [["--local", "web"]], [["-g", "web"]], [["--help"]]])(
    "%j is left to the CLI",
    (args) => {
      expect(parseStopArgs(args)).toBeUndefined()
    },
  )
})

describe("quickStop", () => {
  const fake = makeFakeSupervisor("quick-stop")
  beforeEach(fake.start)
  afterEach(fake.stop)

  it("sends the Stop command and prints a line per daemon", async () => {
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(
        JSON.stringify([
          { id: "app/web", was_running: true, killed: false },
          { id: "app/db", was_running: true, killed: true },
          { id: "app/idle", was_running: false, killed: false },
        ]),
      )
    }
    expect(await quickStop(["--all"])).toBe(0)
    expect(fake.received).toEqual([
      {
        path: "/api/commands",
        _tag: "Stop",
        selection: {
          ids: [],
          all: true,
          from: { _tag: "Directory", cwd: process.cwd(), env: expect.any(Object), strict: true },
        },
        reason: "cli",
      },
    ])
    const lines = fake.written.stdout.split("\n")
    expect(lines[0]).toMatch(/app\/web.* stopped$/)
    expect(lines[1]).toMatch(/app\/db.* stopped .*killed with SIGKILL.*daemons\.db\.stop_signal\.timeout/)
    expect(lines[2]).toMatch(/app\/idle.* was not running$/)
    expect(fake.written.stderr).toBe("")
  })

  it("--json prints the results as the supervisor encoded them; nothing running says so", async () => {
    const results = [{ id: "app/web", was_running: true, killed: false }]
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(results))
    }
    expect(await quickStop(["web", "--json"])).toBe(0)
    expect(fake.written.stdout).toBe(`${JSON.stringify(results, null, 2)}\n`)
    fake.written.stdout = ""
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end("[]")
    }
    expect(await quickStop(["--all"])).toBe(0)
    expect(fake.written.stdout).toMatch(/no daemon is running: nothing to stop\n$/)
  })

  it("leaves the stop to the CLI when the command is refused, or when nobody answers", async () => {
    fake.answer = (res) => {
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ _tag: "DaemonNotFound", id: "nosuch", message: "no daemon nosuch" }))
    }
    expect(await quickStop(["nosuch"])).toBe(false)
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end("not json")
    }
    expect(await quickStop(["web"])).toBe(false)
    expect(fake.written).toEqual({ stdout: "", stderr: "" })
    fake.server?.close()
    expect(await quickStop(["web"])).toBe(false)
  })
})
