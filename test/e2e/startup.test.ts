/**
 * What the launcher does to start fast must never break the CLI: a missing, corrupt or
 * foreign code cache only costs a compile, and `list --json` answered by the supervisor
 * (dist/quick.cjs) prints what the CLI prints, or leaves the answer to the CLI.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { BIN, copyInstall, type DaemonSandbox, makeDaemonSandbox, runCli } from "./harness.js"

const T = 30_000
const DIST = dirname(BIN)

let sb: DaemonSandbox
let proj: string
/** A copy of dist/ (and package.json) that a test may damage. */
let copy: string
/** Added to the sandbox's environment of the CLI runs below (not the supervisor's). */
let extraEnv: Record<string, string> = {}

// `Zed`: ICU orders it after `web`, a plain string sort before `idle`; `aa`: see below.
const CONFIG =
  '[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0.1\n\n[daemons.idle]\nrun = "sleep 1"\n\n[daemons.Zed]\nrun = "sleep 1"\n\n[daemons.aa]\nrun = "sleep 1"\n'

beforeEach(() => {
  extraEnv = {}
  sb = makeDaemonSandbox()
  proj = sb.project("app", CONFIG)
  copy = copyInstall(sb.dir("install"))
})
afterEach(() => sb.destroy(), T)

/** The copied launcher, as the package's `bin`. */
const launch = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [join(copy, "supervisor.cjs"), ...args], {
    cwd: proj,
    env: { ...sb.env, ...extraEnv },
    encoding: "utf8",
    timeout: T,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
/** The CLI bundle itself, without the launcher (no code cache, no fast path). */
const bundle = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [join(DIST, "cli.cjs"), ...args], {
    cwd: proj,
    env: { ...sb.env, ...extraEnv },
    encoding: "utf8",
    timeout: T,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe("the code cache", () => {
  it(
    "missing, corrupt, truncated: same output, and the launcher writes a good one again",
    () => {
      const cache = join(copy, "cli.cjs.cache")
      const expected = bundle("config", "show", "--json")
      expect(expected.status).toBe(0)
      const good = readFileSync(cache)
      const damages: Array<[string, () => void]> = [
        ["missing", () => rmSync(cache)],
        ["corrupt", () => writeFileSync(cache, Buffer.alloc(good.length, 0x5a))],
        ["truncated", () => writeFileSync(cache, good.subarray(0, 100))],
        ["empty", () => writeFileSync(cache, "")],
      ]
      for (const [what, damage] of damages) {
        damage()
        const r = launch("config", "show", "--json")
        expect(r.status, `${what}: ${r.stderr}`).toBe(0)
        expect(r.stdout, what).toBe(expected.stdout)
        expect(r.stderr, what).toBe("")
        expect(existsSync(cache), what).toBe(true)
        expect(readFileSync(cache).length, what).toBeGreaterThan(1000)
        expect(launch("config", "show", "--json").stdout, `${what}, then rewritten`).toBe(expected.stdout)
      }
    },
    T * 2,
  )

  it("--version and --help need no cache", () => {
    rmSync(join(copy, "cli.cjs.cache"))
    expect(launch("--version").stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    const r = launch("--help")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("Usage: supervisor [FLAGS] [COMMAND]")
    // not a terminal: no colour escapes, in @effect/cli's help and errors either
    expect(r.stdout).not.toMatch(/\u001b\[/)
    const sub = launch("start", "--help")
    expect(sub.stdout).toContain("--group")
    expect(sub.stdout).not.toMatch(/\u001b\[/)
    expect(launch("start", "--bogus").stderr).not.toMatch(/\u001b\[/)
  })
})

/** What may change between two listings of a running daemon. */
const stable = (stdout: string) =>
  (JSON.parse(stdout) as Array<Record<string, unknown>>).map(
    ({ cpu_percent: _c, memory_bytes: _m, uptime_secs: _u, ...rest }) => rest,
  )

describe("list --json, answered by the supervisor", () => {
  it(
    "prints exactly what the CLI prints, without the CLI bundle",
    () => {
      expect(launch("start", "web").status).toBe(0)
      rmSync(join(copy, "cli.cjs")) // only the fast path can answer now
      // The order ignores the locale (src/domain/idOrder.ts): also in Danish, where a locale's
      // collation puts "aa" after "z". `bundle` is the full CLI, from the real dist/.
      const orders: Array<[Record<string, string>, Array<string>]> = [
        [{}, ["aa", "idle", "web", "Zed"]],
        [{ LC_ALL: "da_DK.UTF-8" }, ["aa", "idle", "web", "Zed"]],
      ]
      for (const [env, order] of orders) {
        extraEnv = env
        const full = bundle("list", "--json")
        expect(full.status, full.stderr).toBe(0)
        expect(stable(full.stdout).map((e) => (e.id as { name: string }).name)).toEqual(order)
        expect(stable(full.stdout).find((e) => (e.id as { name: string }).name === "web")?.status).toEqual({
          type: "running",
        })
        for (const args of [
          ["list", "--json"],
          ["ls", "--json"],
        ]) {
          const r = launch(...args)
          expect(r.status, r.stderr).toBe(0)
          expect(r.stderr).toBe("")
          expect(stable(r.stdout)).toEqual(stable(full.stdout))
          expect(r.stdout.endsWith("}\n]\n")).toBe(true)
        }
      }
    },
    T,
  )

  it(
    "leaves configuration warnings, a stopped supervisor and a missing quick.cjs to the CLI",
    () => {
      // No supervisor: the CLI starts one (auto_start), as before.
      rmSync(join(copy, "quick.cjs"))
      const first = launch("list", "--json")
      expect(first.status, first.stderr).toBe(0)
      expect(stable(first.stdout)).toHaveLength(4)
      copyFileSync(join(DIST, "quick.cjs"), join(copy, "quick.cjs"))
      // A warning must reach stderr: only the CLI prints it.
      writeFileSync(
        join(proj, "supervisor.toml"),
        `${CONFIG}\n[daemons.old]\nrun = "x"\nexpected_port = [3999]\nauto_bump_port = true\n`,
      )
      const warned = launch("list", "--json")
      expect(warned.status).toBe(0)
      expect(warned.stderr).toMatch(/warning: .*expected_port.*deprecated/)
      expect(stable(warned.stdout).map((e) => (e.id as { name: string }).name)).toEqual([
        "aa",
        "idle",
        "old",
        "web",
        "Zed",
      ])
      // The same through the harness's launcher, for good measure.
      expect(runCli(["list", "--json"], { cwd: proj, env: sb.env }).stderr).toMatch(/deprecated/)
    },
    T,
  )
})

describe("stop, answered by the supervisor", () => {
  it(
    "prints exactly what the CLI prints, without the CLI bundle; what it does not take on goes to the CLI",
    () => {
      expect(launch("start", "web").status).toBe(0)
      // a configuration with a warning: only the CLI prints it, so the CLI answers even `stop --all`
      // (which needs no configuration); the daemon it stops is started again for what follows
      writeFileSync(
        join(proj, "supervisor.toml"),
        `${CONFIG}\n[daemons.old]\nrun = "x"\nexpected_port = [3999]\nauto_bump_port = true\n`,
      )
      const warned = launch("stop", "--all")
      expect(warned.status, warned.stderr).toBe(0)
      expect(warned.stderr).toMatch(/warning: .*expected_port.*deprecated/)
      expect(warned.stdout).toContain("app/web stopped")
      writeFileSync(join(proj, "supervisor.toml"), CONFIG)
      expect(launch("start", "web").status).toBe(0)
      const full = bundle("stop", "idle", "--json")
      expect(full.status, full.stderr).toBe(0)
      rmSync(join(copy, "cli.cjs")) // only the fast path can answer now
      const json = launch("stop", "idle", "--json")
      expect(json.status, json.stderr).toBe(0)
      expect(json.stdout).toBe(full.stdout)
      expect(JSON.parse(json.stdout)).toEqual([{ id: "app/idle", was_running: false, killed: false }])
      const stopped = launch("stop", "--all")
      expect(stopped.status, stopped.stderr).toBe(0)
      expect(stopped.stderr).toBe("")
      expect(stopped.stdout).toBe("✓ app/web stopped\n")
      expect(launch("stop", "--all").stdout).toBe("no daemon is running: nothing to stop\n")
      expect(launch("stop", "-a", "-q")).toEqual({ status: 0, stdout: "", stderr: "" })
      // a flag of the CLI's own, an unknown ID: the CLI answers (and here it is gone)
      expect(launch("stop", "--all", "--local").status).not.toBe(0)
      expect(launch("stop", "nosuch").status).not.toBe(0)
    },
    T,
  )
})
