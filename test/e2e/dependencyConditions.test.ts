// Dependency conditions through the built CLI: `completed` waits for a one-shot task's exit 0
// (and fails the dependent with its output otherwise), `started` does not wait for readiness.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  apiPost,
  copyInstall,
  type DaemonSandbox,
  daemonPids,
  makeDaemonSandbox,
  onTerminal,
  waitFor,
} from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
  sb.env.NO_COLOR = "1"
})
afterEach(() => sb.destroy(), T)

// migrate counts as ready after 0.3 s but runs 1.5 s: only `completed` makes api wait for it.
// api fails at once unless the migration's file exists.
const MIGRATE = `[daemons.migrate]
run = "sleep 1.5; echo migrated >> migrated.txt; echo migration done"
ready_delay = 0.3
`
const API = `[daemons.api]
run = "test -f migrated.txt || { echo 'no migration'; exit 1; }; exec sleep 300"
ready_delay = 0.3
depends = [{ id = "migrate", condition = "completed" }]
`
const runs = (dir: string) =>
  existsSync(join(dir, "migrated.txt"))
    ? readFileSync(join(dir, "migrated.txt"), "utf8").trim().split("\n").length
    : 0

describe("condition = completed", () => {
  it(
    "start api runs the migration to completion first, and says so while it waits",
    () => {
      const dir = sb.project("shop", `namespace = "shop"\n${MIGRATE}\n${API}`)
      // the full CLI (no supervisor runs yet: it is started by this command)
      const first = sb.cli(["start", "api"], dir)
      expect(first.status, first.stderr).toBe(0)
      const lines = first.stdout.split("\n")
      const waits = lines.indexOf("shop/api waiting for shop/migrate to complete")
      const completed = lines.indexOf("✓ shop/migrate ran to completion (exit 0)")
      expect(waits, first.stdout).toBeGreaterThanOrEqual(0)
      expect(completed, first.stdout).toBeGreaterThan(waits)
      expect(lines.findIndex((l) => l.startsWith("✓ shop/api is running"))).toBeGreaterThan(completed)
      expect(runs(dir)).toBe(1)
      expect(daemonPids(sb.stateDir, "shop/api")).toHaveLength(1)

      // api runs: nothing runs again
      const again = sb.cli(["start", "api"], dir)
      expect(again.status, again.stderr).toBe(0)
      expect(again.stdout).toContain("shop/api is already running")
      expect(runs(dir)).toBe(1)

      // a dependent that starts again runs the migration again, once (the quick client this time)
      expect(sb.cli(["stop", "api"], dir).status).toBe(0)
      const restarted = sb.cli(["start", "api"], dir)
      expect(restarted.status, restarted.stderr).toBe(0)
      expect(restarted.stdout).toContain("shop/api waiting for shop/migrate to complete")
      expect(restarted.stdout).toContain("✓ shop/migrate ran to completion (exit 0)")
      expect(runs(dir)).toBe(2)
    },
    T,
  )

  it(
    "a migration that runs already is waited for, not started again",
    () => {
      const dir = sb.project("shop", `namespace = "shop"\n${MIGRATE}\n${API}`)
      // ready after 0.3 s: it still runs when `start api` comes
      const m = sb.cli(["start", "migrate"], dir)
      expect(m.status, m.stderr).toBe(0)
      expect(m.stdout).toContain("✓ shop/migrate is running")
      const r = sb.cli(["start", "api"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("shop/api waiting for shop/migrate to complete")
      expect(r.stdout).toContain("✓ shop/migrate ran to completion (exit 0)")
      expect(runs(dir)).toBe(1)
      expect(daemonPids(sb.stateDir, "shop/api")).toHaveLength(1)
    },
    T,
  )

  it(
    "a migration that exits 3 fails start api with its last output; api is not started",
    () => {
      const failing = `[daemons.migrate]
run = "sleep 0.8; echo 'applying 0002_users'; echo 'ERROR: relation users already exists'; exit 3"
ready_delay = 0.3
`
      const dir = sb.project("shop", `namespace = "shop"\n${failing}\n${API}`)
      for (const args of [
        ["start", "api"],
        ["start", "api"],
      ]) {
        const r = sb.cli(args, dir)
        expect(r.status, r.stdout).toBe(1)
        expect(r.stdout).toContain("shop/api waiting for shop/migrate to complete")
        expect(r.stderr).toContain(
          "✗ shop/api failed to start: not started: its dependency shop/migrate did not complete (shop/migrate exited with code 3)\n  last output:\n    applying 0002_users\n    ERROR: relation users already exists\n",
        )
        expect(daemonPids(sb.stateDir, "shop/api")).toEqual([])
      }
      // --json: the same outcome, through its schema
      const json = sb.cli(["start", "api", "--json"], dir)
      expect(json.status).toBe(1)
      const outcomes = JSON.parse(json.stdout) as Array<{ _tag: string; id: string; output: Array<string> }>
      expect(outcomes.map((o) => `${o._tag} ${o.id}`)).toEqual([
        "StartFailed shop/migrate",
        "StartFailed shop/api",
      ])
      expect(outcomes[1]!.output).toContain("ERROR: relation users already exists")
    },
    T,
  )
})

describe("a completed migration behind a running dependency", () => {
  // worker and web need api, api needs migrate to complete
  const CHAIN = `namespace = "shop"
${MIGRATE}
${API}
[daemons.worker]
run = "exec sleep 300"
ready_delay = 0.3
depends = ["api"]

[daemons.web]
run = "exec sleep 300"
ready_delay = 0.3
depends = ["api"]
`
  it(
    "restart worker and start web leave the running api, and its migration, alone",
    () => {
      const dir = sb.project("shop", CHAIN)
      const first = sb.cli(["start", "worker"], dir)
      expect(first.status, first.stderr).toBe(0)
      expect(runs(dir)).toBe(1)
      const apiPid = daemonPids(sb.stateDir, "shop/api")
      // the full CLI (restart), the quick client (start) and the full CLI for start (--delay)
      for (const args of [
        ["restart", "worker"],
        ["start", "web"],
        ["start", "web", "--force", "--delay", "0.3"],
      ]) {
        const r = sb.cli(args, dir)
        expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0)
        expect(r.stdout, args.join(" ")).not.toContain("migrate")
        expect(runs(dir), args.join(" ")).toBe(1)
      }
      expect(daemonPids(sb.stateDir, "shop/api")).toEqual(apiPid)
      expect(daemonPids(sb.stateDir, "shop/web")).toHaveLength(1)
      // a dependent that starts itself runs it again: restart api
      const again = sb.cli(["restart", "api"], dir)
      expect(again.status, again.stderr).toBe(0)
      expect(again.stdout).toContain("✓ shop/migrate ran to completion (exit 0)")
      expect(runs(dir)).toBe(2)
    },
    T,
  )

  it(
    "completed_once: a migration that completed under this supervisor does not run again",
    async () => {
      const once = CHAIN.replace('condition = "completed"', 'condition = "completed_once"')
      const dir = sb.project("shop", once)
      const valid = sb.cli(["config", "validate"], dir)
      expect(valid.status, valid.stdout + valid.stderr).toBe(0)
      expect(sb.cli(["start", "api"], dir).status).toBe(0)
      expect(runs(dir)).toBe(1)
      for (const args of [
        ["restart", "api"],
        ["stop", "api"],
        ["start", "api"],
        ["start", "worker"],
      ]) {
        const r = sb.cli(args, dir)
        expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0)
        expect(r.stdout, args.join(" ")).not.toContain("migrate")
      }
      expect(runs(dir)).toBe(1)
      // asked for by name, it runs (ready before it ends: its line comes later)
      const named = sb.cli(["start", "migrate"], dir)
      expect(named.status, named.stderr).toBe(0)
      await waitFor("the migration run by name", () => runs(dir) === 2, { timeout: 10_000, interval: 100 })
    },
    T,
  )
})

describe("over the HTTP API", () => {
  it(
    "POST /api/daemons/{id}/start waits for the migration too, and fails with why it did not complete",
    async () => {
      const dir = sb.project("shop", `namespace = "shop"\n${MIGRATE}\n${API}`)
      expect(sb.cli(["supervisor", "start"], dir).status).toBe(0)
      expect(await apiPost(sb.stateDir, "/api/namespaces", { dir })).toMatchObject({ ok: true })
      // api fails at once without the migration's file: ok means it ran after migrate completed
      expect(await apiPost(sb.stateDir, "/api/daemons/shop%2Fapi/start", undefined)).toEqual({ ok: true })
      expect(runs(dir)).toBe(1)
      expect(daemonPids(sb.stateDir, "shop/api")).toHaveLength(1)

      writeFileSync(
        join(dir, "supervisor.toml"),
        `namespace = "shop"\n${MIGRATE.replace("echo migration done", "echo 'disk full'; exit 3")}\n${API}`,
      )
      expect(sb.cli(["stop", "api"], dir).status).toBe(0)
      expect(await apiPost(sb.stateDir, "/api/daemons/shop%2Fapi/start", undefined)).toEqual({
        ok: false,
        error: "not started: its dependency shop/migrate did not complete (shop/migrate exited with code 3)",
      })
      expect(daemonPids(sb.stateDir, "shop/api")).toEqual([])
    },
    T,
  )
})

describe("condition = started", () => {
  it(
    "the dependent starts once the dependency's process exists, without waiting for its readiness",
    () => {
      // queue is ready only after api has started: waiting for its readiness would never end
      const dir = sb.project(
        "app",
        `[daemons.queue]
run = "while [ ! -f api.started ]; do sleep 0.05; done; echo queue-up; exec sleep 300"
ready_output = { pattern = "^queue-up$", timeout = "8s" }

[daemons.api]
run = "touch api.started; exec sleep 300"
ready_delay = 0.2
depends = [{ id = "queue", condition = "started" }]
`,
      )
      const r = sb.cli(["start", "api"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("app/api waiting for app/queue to start")
      expect(r.stdout).toContain("✓ app/queue is running")
      expect(r.stdout).toContain("✓ app/api is running")
    },
    T,
  )
})

describe("condition = ready (a plain string)", () => {
  it(
    "the progress names the dependency it waits for",
    () => {
      const dir = sb.project(
        "app",
        `[daemons.db]
run = "exec sleep 300"
ready_delay = 0.3

[daemons.api]
run = "exec sleep 300"
ready_delay = 0.1
depends = ["db"]
`,
      )
      const r = sb.cli(["start", "api"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout.split("\n")[0]).toBe("app/api waiting for app/db to be ready")
    },
    T,
  )
})

describe("on a terminal", () => {
  /** `start api` under a pseudo-terminal (`script`); lets migrate finish once the spinner says why api waits. */
  const spinnerStart = async (launcher: string, dir: string) => {
    const term = onTerminal([process.execPath, launcher, "start", "api"], { cwd: dir, env: sb.env })
    try {
      await waitFor("the spinner line of api", () =>
        /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] shop\/api waiting for shop\/migrate to complete/.test(term.output()),
      )
      writeFileSync(join(dir, "go"), "")
      expect(await term.exited, term.output()).toBe(0)
    } finally {
      term.kill()
    }
    const out = term.output()
    expect(out).toContain("✓ shop/migrate ran to completion (exit 0)")
    expect(out).toMatch(/✓ shop\/api is running \(pid \d+\)/)
  }

  it(
    "the spinner says that api waits for migrate to complete: CLI and quick client",
    async () => {
      const dir = sb.project(
        "shop",
        `namespace = "shop"
[daemons.migrate]
run = "while [ ! -f go ]; do sleep 0.05; done; echo migrated"
ready_delay = 0.2

[daemons.api]
run = "exec sleep 300"
ready_delay = 0.1
depends = [{ id = "migrate", condition = "completed" }]
`,
      )
      const copy = copyInstall(sb.dir("install"))
      await spinnerStart(join(copy, "supervisor.cjs"), dir) // no supervisor yet: the full CLI
      expect(sb.cli(["stop", "api"], dir).status).toBe(0)
      rmSync(join(dir, "go"))
      rmSync(join(copy, "cli.cjs")) // only the quick client can answer now
      await spinnerStart(join(copy, "supervisor.cjs"), dir)
    },
    T,
  )
})
