/**
 * `supervisor daemons`, `daemons add` and `daemons remove` (`rm`) through the built CLI: the
 * listing with the files, format-preserving edits (every byte outside the edited lines kept),
 * refusals that leave the file untouched, the new daemon started by `supervisor start`, and a
 * running supervisor that lists an added daemon (and drops a removed one) without a restart.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiGet,
  apiPost,
  type DaemonSandbox,
  makeDaemonSandbox,
  STACK_LINE,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 60_000

/** A hand-written file: comments, odd spacing, blank lines, dotted keys, sub-tables. */
const SHOP = `#:schema ../schemas/supervisor.json
# The shop's daemons.

[daemons.db]   # the database
run = 'exec sleep 301'
ready_delay=0

[daemons.db.env]
PGDATA = "./data"

# The web server.
[daemons.web]
run = "exec sleep 302"
depends = [
  "db",   # first
]

[daemons]
cache.run = "exec sleep 303"
`

let sb: DaemonSandbox
let shop: string
let file: string
const cli = (...args: Array<string>) => sb.cli(args, shop)

interface Listed {
  readonly id: string
  readonly run: string
  readonly files: ReadonlyArray<string>
}
interface Entry {
  readonly id: { readonly qualified: string }
  readonly status: { readonly type: string }
  readonly run: string
}
const entry = async (id: string) =>
  ((await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")) ?? []).find((e) => e.id.qualified === id)

beforeAll(() => {
  sb = makeDaemonSandbox()
  shop = sb.project("shop", SHOP)
  file = join(shop, "supervisor.toml")
  sb.write({ "home/.config/supervisor/config.toml": '[daemons.tunnel]\nrun = "exec sleep 304"\n' })
}, T)
afterAll(() => sb.destroy(), T)

describe("supervisor daemons (e2e)", () => {
  it("lists the daemons seen from here, each with its run and file; --json through its Schema", () => {
    const r = cli("daemons")
    expect(r.status, r.stderr).toBe(0)
    const rows = r.stdout.trim().split("\n")
    expect(rows[0]).toMatch(/^ID\s+RUN\s+FILE$/)
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^shop/db\\s+exec sleep 301\\s+${file}$`)),
        expect.stringMatching(/^shop\/cache\s+exec sleep 303/),
        expect.stringMatching(/^global\/tunnel\s+exec sleep 304\s+.*config\.toml$/),
      ]),
    )
    const json = JSON.parse(cli("daemons", "--json").stdout) as Array<Listed>
    expect(json).toContainEqual({ id: "shop/web", run: "exec sleep 302", files: [file] })
    // pitchfork's alias
    expect(cli("daemon", "--json").stdout).toBe(cli("daemons", "--json").stdout)
  })
})

describe("supervisor daemons add (e2e)", () => {
  it(
    "appends the table after everything else, byte for byte; config show lists it and start starts it",
    () => {
      const r = cli(
        "daemons",
        "add",
        "api",
        "--run",
        'echo "api up" \\ ok; exec sleep 305',
        "--ready-output",
        "api up",
        "--depends",
        "db",
        "--env",
        "MODE=dev mode",
        "--port",
        "39211",
        "--bump",
        "--retry",
        "2",
        "--on-ready",
        "echo ready",
      )
      expect(r.status, r.stderr).toBe(0)
      // the qualified ID, as pitchfork names it
      expect(r.stdout).toContain(`added shop/api to ${file}`)
      const text = readFileSync(file, "utf8")
      expect(text.startsWith(SHOP)).toBe(true)
      expect(text.slice(SHOP.length)).toBe(
        [
          "",
          "[daemons.api]",
          'run = "echo \\"api up\\" \\\\ ok; exec sleep 305"',
          'env = { MODE = "dev mode" }',
          "retry = 2",
          'ready_output = "api up"',
          'depends = ["db"]',
          // a bare --bump: the attempts of settings.supervisor.port_bump_attempts (10)
          "port = { expect = [39211], bump = 10 }",
          "",
          "[daemons.api.hooks]",
          'on_ready = "echo ready"',
          "",
        ].join("\n"),
      )
      const shown = cli("config", "show")
      expect(shown.status, shown.stderr).toBe(0)
      expect(shown.stdout).toContain("shop/api")
      const started = cli("start", "api")
      expect(started.status, started.stderr).toBe(0)
      expect(started.stdout).toMatch(/shop\/api is running \(pid \d+, port 39211\)/)
    },
    T,
  )

  it("refuses, with the file untouched: an existing id, a missing --run, a bad id, a value the Schema refuses, an unknown dependency", () => {
    const before = readFileSync(file)
    const mtime = statSync(file).mtimeMs
    const refusals: Array<[ReadonlyArray<string>, number, RegExp]> = [
      [
        ["web", "--run", "x"],
        1,
        new RegExp(`${file}:11: daemons\\.web: .*already declared.*daemons remove web`),
      ],
      [["cache", "--run", "x"], 1, new RegExp(`${file}:19: daemons\\.cache: .*already declared`)],
      [["worker"], 2, /give the command the daemon runs: --run CMD, or after --/],
      [["my app", "--run", "x"], 2, /invalid daemon name "my app": must not contain spaces/],
      [
        ["worker", "--run", "x", "--ready-http", "localhost:3000"],
        1,
        new RegExp(`${file}:\\d+: daemons\\.worker\\.ready_http: expected an http`),
      ],
      [["worker", "--run", "x", "--memory-limit", "lots"], 1, /daemons\.worker\.memory_limit: /],
      [
        ["worker", "--run", "x", "--depends", "nope"],
        1,
        /daemons\.worker\.depends\[0\]: .*"shop\/nope", which is not a configured daemon/,
      ],
      [["worker", "--run", "x", "--port", "70000"], 2, /--port "70000": expected a TCP port number/],
      [["worker", "--run", "x", "--local", "--global"], 2, /give one of them/],
    ]
    for (const [args, status, message] of refusals) {
      const r = cli("daemons", "add", ...args)
      expect(r.status, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(status)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toMatch(STACK_LINE)
      expect(readFileSync(file).equals(before), args.join(" ")).toBe(true)
    }
    expect(statSync(file).mtimeMs).toBe(mtime)
  })

  it("creates the project's supervisor.toml when there is none, and --global writes the user's file", () => {
    const fresh = sb.dir("fresh")
    const none = sb.cli(["daemons"], fresh, { ...sb.env, SUPERVISOR_CONFIG_DIR: sb.dir("no-user-config") })
    expect(none).toMatchObject({ status: 0, stdout: "" })
    expect(none.stderr).toContain("no daemons configured here")
    const r = sb.cli(
      ["daemons", "add", "one", "--run", "exec sleep 306", "--cron", "0 0 * * * *", "--cron-immediate"],
      fresh,
    )
    expect(r.status, r.stderr).toBe(0)
    expect(readFileSync(join(fresh, "supervisor.toml"), "utf8")).toBe(
      '[daemons.one]\nrun = "exec sleep 306"\ncron = { schedule = "0 0 * * * *", immediate = true }\n',
    )
    const g = sb.cli(
      ["daemons", "add", "sync", "--run", "exec sleep 307", "--global", "--auto", "start"],
      fresh,
    )
    expect(g.status, g.stderr).toBe(0)
    expect(readFileSync(join(sb.home, ".config/supervisor/config.toml"), "utf8")).toBe(
      '[daemons.tunnel]\nrun = "exec sleep 304"\n\n[daemons.sync]\nrun = "exec sleep 307"\nauto = ["start"]\n',
    )
  })
})

describe("supervisor daemons remove (e2e)", () => {
  it("removes the table, its sub-tables and the comments directly above it; everything else byte for byte", () => {
    const proj = sb.project("rm", SHOP)
    // web depends on db: removing db alone would break the configuration
    const refused = sb.cli(["daemons", "remove", "db"], proj)
    expect(refused.status).toBe(1)
    expect(refused.stderr).toMatch(/daemons\.web\.depends\[0\]: .*"rm\/db", which is not a configured daemon/)
    expect(readFileSync(join(proj, "supervisor.toml"), "utf8")).toBe(SHOP)
    // rm is remove's alias
    expect(sb.cli(["daemons", "rm", "web"], proj).status).toBe(0)
    expect(readFileSync(join(proj, "supervisor.toml"), "utf8")).toBe(
      SHOP.replace(
        '# The web server.\n[daemons.web]\nrun = "exec sleep 302"\ndepends = [\n  "db",   # first\n]\n\n',
        "",
      ),
    )
    expect(sb.cli(["daemons", "rm", "db"], proj).status).toBe(0)
    expect(readFileSync(join(proj, "supervisor.toml"), "utf8")).toBe(
      '#:schema ../schemas/supervisor.json\n# The shop\'s daemons.\n\n[daemons]\ncache.run = "exec sleep 303"\n',
    )
  })

  it("warns of an id the file does not declare (exit 0, as pitchfork): the closest ids, or the file (and flag) that declares it", () => {
    const proj = sb.project("rm2", '[daemons.web]\nrun = "x"\n')
    writeFileSync(join(proj, "supervisor.local.toml"), '[daemons.mine]\nrun = "y"\n')
    const typo = sb.cli(["daemons", "remove", "wbe"], proj)
    expect(typo.status).toBe(0)
    expect(typo.stdout).toBe("")
    expect(typo.stderr).toContain(
      `warning: ${join(proj, "supervisor.toml")}: daemons.wbe: daemon "wbe" is not declared in this file: nothing removed`,
    )
    expect(typo.stderr).toContain("did you mean web?")
    const local = sb.cli(["daemons", "remove", "mine"], proj)
    expect(local.status).toBe(0)
    expect(local.stderr).toContain(`it is declared in ${join(proj, "supervisor.local.toml")}: add --local`)
    expect(readFileSync(join(proj, "supervisor.local.toml"), "utf8")).toBe('[daemons.mine]\nrun = "y"\n')
    const removed = sb.cli(["daemons", "remove", "mine", "--local"], proj)
    expect(removed.status).toBe(0)
    expect(removed.stdout).toContain(`removed rm2/mine from ${join(proj, "supervisor.local.toml")}`)
    expect(readFileSync(join(proj, "supervisor.local.toml"), "utf8")).toBe("")
    expect(readFileSync(join(proj, "supervisor.toml"), "utf8")).toBe('[daemons.web]\nrun = "x"\n')
  })

  it("edits no file that is not TOML, and says so with the line", () => {
    const broken = '[daemons.web\nrun = "x"\n'
    const proj = sb.project("broken", broken)
    for (const args of [
      ["add", "api", "--run", "y"],
      ["remove", "web"],
    ]) {
      const r = sb.cli(["daemons", ...args], proj)
      expect(r.status, r.stderr).toBe(1)
      expect(r.stderr).toMatch(
        new RegExp(`${join(proj, "supervisor.toml")}:\\d+: not valid TOML .*fix the file first`),
      )
      expect(readFileSync(join(proj, "supervisor.toml"), "utf8")).toBe(broken)
    }
  })
})

describe("a running supervisor (e2e)", () => {
  it(
    "lists a daemon added with daemons add, and drops one removed with daemons remove, without a restart",
    async () => {
      const proj = sb.project("live", '# live\n[daemons.a]\nrun = "exec sleep 308"\n')
      if ((await apiGet(sb.stateDir, "/api/daemons")) === undefined) {
        const started = sb.cli(["supervisor", "start"], sb.root)
        expect(started.status, started.stderr).toBe(0)
      }
      const supervisor = supervisorPids(sb.stateDir)
      expect(supervisor).toHaveLength(1)
      expect(await apiPost(sb.stateDir, "/api/namespaces", { dir: proj })).toMatchObject({ ok: true })
      expect(await entry("live/a")).toMatchObject({ status: { type: "available" } })
      expect(sb.cli(["daemons", "add", "b", "--run", "exec sleep 309"], proj).status).toBe(0)
      await waitFor(
        "live/b in GET /api/daemons",
        async () => (await entry("live/b"))?.run === "exec sleep 309",
        {
          timeout: 20_000,
        },
      )
      const list = sb.cli(["list"], proj)
      expect(list.stdout).toContain("live/b")
      expect(sb.cli(["daemons", "remove", "b"], proj).status).toBe(0)
      await waitFor("live/b gone from GET /api/daemons", async () => (await entry("live/b")) === undefined, {
        timeout: 20_000,
      })
      expect(supervisorPids(sb.stateDir)).toEqual(supervisor)
    },
    T,
  )
})
