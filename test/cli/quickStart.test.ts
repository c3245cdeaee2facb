/**
 * The quick client of `supervisor start` (src/quick/start.ts): which arguments it takes on, and
 * what it does with each answer of a (fake) supervisor on a real Unix socket. It must never
 * leave a start to the CLI once the supervisor has begun one: the CLI would start it again.
 */
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import { readCliTree } from "../../src/cli/usageSpec/effectCli.js"
import { parseStartArgs, QUICK_FLAGS } from "../../src/domain/quickForms.js"
import { quickStart } from "../../src/quick/start.js"
import { makeFakeSupervisor } from "./fakeSupervisor.js"

describe("parseStartArgs", () => {
  it("knows start's flags by the names the command tree gives them", () => {
    const start = readCliTree(rootCommand).subcommands.find((c) => c.name === "start")!
    const names = (long: string) => {
      const flag = start.flags.find((f) => f.long.includes(long))!
      return [...flag.long.map((l) => `--${l}`), ...flag.short.map((s) => `-${s}`)].sort()
    }
    const byKey = (key: string) =>
      Object.keys(QUICK_FLAGS)
        .filter((name) => QUICK_FLAGS[name] === key)
        .sort()
    for (const key of ["all", "force", "quiet", "json"]) expect(byKey(key), key).toEqual(names(key))
    expect(names("group")).toEqual(["--group"])
  })

  const none = { ids: [], all: false, group: null, force: false, quiet: false, json: false }
  it.each([
    [["web"], { ...none, ids: ["web"] }],
    [["--all", "--quiet"], { ...none, all: true, quiet: true }],
    [["-a", "-q", "-f"], { ...none, all: true, quiet: true, force: true }],
    [["web", "--json", "app/db"], { ...none, ids: ["web", "app/db"], json: true }],
    [["--group", "backend", "web"], { ...none, group: "backend", ids: ["web"] }],
    [["--group=backend"], { ...none, group: "backend" }],
    [[], none],
  ])("%j is taken on", (args, expected) => {
    expect(parseStartArgs(args)).toEqual(expected)
  })

  it.each([
    [["-qf"]],
    [["web", "--delay", "1"]],
    [["--quiet", "-q"]],
    [["--group"]],
    [["--group", "--all"]],
    [["--group="]],
    [["--group", "a", "--group", "b"]],
    [["-g"]],
    [["-l"]],
    [["--local"]],
    [["web", "--", "x"]],
    [["--help"]],
    [["-"]],
  ])("%j is left to the CLI", (args) => {
    expect(parseStartArgs(args)).toBeUndefined()
  })
})

describe("quickStart", () => {
  const fake = makeFakeSupervisor("quick-start")
  beforeEach(fake.start)
  afterEach(fake.stop)

  it("sends the Start command, prints the waiting lines and the outcomes, and answers the exit status", async () => {
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" })
      // the upfront list (a spinner's), then the daemon's own line once spawned (a transcript's)
      res.write(`${JSON.stringify({ waiting: [{ id: "app/web", what: "port 3000" }] })}\n`)
      res.write(`${JSON.stringify({ waiting: [{ id: "app/web", what: "port 3000" }] })}\n`)
      const failed = {
        _tag: "StartFailed",
        id: "app/web",
        message: "app/web exited with code 3",
        exit_code: 3,
        signal: null,
        output: ["boom"],
        cli_status: 1,
      }
      res.write(`${JSON.stringify({ outcome: failed })}\n`) // as it settles, then all of them
      res.end(`${JSON.stringify({ outcomes: [failed] })}\n`)
    }
    expect(await quickStart(["web", "-f"])).toBe(1)
    // the protocol's Start (no definitions): the supervisor reads the selection from the directory
    expect(fake.received).toEqual([
      {
        path: "/api/commands",
        _tag: "Start",
        selection: {
          ids: ["web"],
          all: false,
          from: { _tag: "Directory", cwd: process.cwd(), env: expect.any(Object), strict: true },
        },
        force: true,
        reason: "cli",
        wait: "events",
      },
    ])
    expect((fake.received[0] as { selection: { from: { env: unknown } } }).selection.from.env).toMatchObject({
      SUPERVISOR_STATE_DIR: process.env.SUPERVISOR_STATE_DIR,
    })
    expect(fake.written.stderr).toBe(
      "✗ app/web failed to start: app/web exited with code 3\n  last output:\n    boom\n",
    )
    if (!process.stderr.isTTY) expect(fake.written.stdout).toBe("app/web waiting for port 3000\n")
    expect(process.exitCode).toBeUndefined() // the launcher applies the status
  })

  it("sends the group and --all as the selection's", async () => {
    fake.answer = (res) => {
      res.writeHead(409, { "content-type": "application/json" })
      res.end(JSON.stringify({ _tag: "NothingSelected", message: "no daemons to start" }))
    }
    expect(await quickStart(["--group", "backend", "--all", "-q"])).toBe(false)
    expect(fake.received).toEqual([
      expect.objectContaining({
        _tag: "Start",
        selection: expect.objectContaining({ ids: [], all: true, group: "backend" }),
        force: false,
      }),
    ])
  })

  it("leaves the start to the CLI when the command is refused, or when nobody answers", async () => {
    // another version, configuration warnings (strict), an unknown ID: refused before any start
    fake.answer = (res) => {
      res.writeHead(409, { "content-type": "application/json" })
      res.end(JSON.stringify({ _tag: "VersionMismatch", message: "another version" }))
    }
    expect(await quickStart(["web"])).toBe(false)
    fake.answer = (res) => {
      res.writeHead(404)
      res.end()
    }
    expect(await quickStart(["web"])).toBe(false)
    expect(await quickStart(["web", "--delay", "1"])).toBe(false)
    expect(fake.received).toHaveLength(2) // the last one was never sent
    fake.server?.close()
    process.env.SUPERVISOR_STATE_DIR = join(fake.dir, "elsewhere")
    expect(await quickStart(["web"])).toBe(false)
    expect(fake.written).toEqual({ stdout: "", stderr: "" })
    expect(process.exitCode).toBeUndefined()
  })

  it("says so, and does not leave it to the CLI, when the answer breaks off after the start began", async () => {
    fake.answer = (res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" })
      res.write(`${JSON.stringify({ waiting: [] })}\n`)
      setTimeout(() => res.socket?.destroy(), 20)
    }
    expect(await quickStart(["--all", "--quiet"])).toBe(1)
    expect(fake.written.stderr).toMatch(/the supervisor stopped answering before the start finished/)
  })
})
