/**
 * Outputs pitchfork's users and scripts read, through the built CLI: `status`'s `Proxy:` line,
 * `start`'s `↳ ID URL`, `proxy status`'s `Scheme:`/`TLD:`/`Port:` lines, `project list` piped
 * (no header, pitchfork's alive column, nothing when there are no sessions), the flags a
 * `--local` conflict names, SUPERVISOR_LOG on stderr, and the words of error messages.
 */
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
}, T)

const writeUser = (s: DaemonSandbox, text: string) => {
  mkdirSync(join(s.home, ".config", "supervisor"), { recursive: true })
  writeFileSync(join(s.home, ".config", "supervisor", "config.toml"), text)
}

describe("pitchfork's outputs", () => {
  it(
    "start prints the proxy URL, status a Proxy: line, proxy status Scheme:, TLD: and Port: lines",
    async () => {
      sb = makeDaemonSandbox()
      const port = await freePort()
      const shop = sb.project(
        "shop",
        'namespace = "shop"\n[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0\n',
      )
      // the proxy enabled without https (no CA needed) on a free port
      writeUser(
        sb,
        `[settings.proxy]\nenable = true\nhttps = false\nport = ${port}\n[slugs]\nstore = { dir = ${JSON.stringify(shop)}, daemon = "web" }\n`,
      )
      const started = sb.cli(["start", "web"], shop)
      expect(started.status, started.stderr).toBe(0)
      expect(started.stdout).toContain(`  ↳ shop/web http://store.localhost:${port}\n`)
      const json = JSON.parse(sb.cli(["start", "web", "--force", "--json"], shop).stdout)
      expect(json[0]).toMatchObject({
        _tag: "Ready",
        id: "shop/web",
        proxy_url: `http://store.localhost:${port}`,
      })

      const status = sb.cli(["status", "web"], shop)
      expect(status.stdout).toContain(`\nProxy: http://store.localhost:${port}\n`)

      const proxy = sb.cli(["proxy", "status"], shop)
      expect(proxy.status).toBe(0)
      expect(proxy.stdout).toMatch(/^Proxy: enabled$/m)
      expect(proxy.stdout).toMatch(/^ {2}Scheme: +http$/m)
      expect(proxy.stdout).toMatch(/^ {2}TLD: +localhost$/m)
      expect(proxy.stdout).toContain(`\n  Port:    ${port}\n`)
    },
    T,
  )

  it(
    "project list piped: no header, PID DIRECTORY STATUS first with alive, `alive` in --json, nothing without sessions",
    () => {
      sb = makeDaemonSandbox()
      const dir = sb.project("p", '[daemons.web]\nrun = "exec sleep 300"\n')
      const empty = sb.cli(["project", "list"], dir)
      expect(empty.status).toBe(0)
      expect(empty.stdout).toBe("")
      expect(empty.stderr).toBe("")
      const ide = spawn("sleep", ["300"], { stdio: "ignore" })
      try {
        expect(sb.cli(["project", "enter", "--pid", String(ide.pid)], dir).status).toBe(0)
        const rows = sb.cli(["project", "list"], dir).stdout.trim().split("\n")
        expect(rows).toHaveLength(1)
        expect(rows[0]!.split(/\s{2,}/).slice(0, 3)).toEqual([String(ide.pid), dir, "alive"])
        const json = JSON.parse(sb.cli(["project", "list", "--json"], dir).stdout)
        expect(json).toEqual([expect.objectContaining({ pid: ide.pid, directory: dir, alive: true })])
      } finally {
        ide.kill("SIGKILL")
      }
    },
    T,
  )

  it(
    "start --all --local X names both flags; SUPERVISOR_LOG=error silences warnings and notes; error words",
    () => {
      sb = makeDaemonSandbox()
      const dir = sb.project("app", '[daemons.web]\nrun = "exec sleep 300"\n')
      const both = sb.cli(["start", "--all", "--local", "web"], dir)
      expect(both.status).toBe(2)
      expect(both.stderr).toContain("--local cannot be combined with --all or daemon IDs (web)")

      // a warning (daemons remove of an undeclared daemon) and a note (an empty restart)
      const warned = sb.cli(["daemons", "remove", "nope"], dir)
      expect(warned.status).toBe(0)
      expect(warned.stderr).toContain("warning:")
      const quiet = sb.cli(["daemons", "remove", "nope"], dir, { ...sb.env, SUPERVISOR_LOG: "error" })
      expect(quiet.status).toBe(0)
      expect(quiet.stderr).toBe("")
      expect(sb.cli(["restart", "--all"], dir).stderr).toContain("nothing to restart")
      expect(sb.cli(["restart", "--all"], dir, { ...sb.env, SUPERVISOR_LOG: "warn" }).stderr).toBe("")
      const bad = sb.cli(["restart", "--all"], dir, { ...sb.env, SUPERVISOR_LOG: "loud" })
      expect(bad.stderr).toContain("SUPERVISOR_LOG=loud: invalid level 'loud'")
      // the configuration's warnings (a deprecated spelling) in config validate, and export's
      const legacy = sb.project("legacy", '[daemons.api]\nrun = "serve --host 127.0.0.1"\nexpect = [3000]\n')
      const out = join(sb.root, "compose-out")
      for (const args of [
        ["config", "validate"],
        ["export", "compose", "--out", out, "--force"],
      ]) {
        const loud = sb.cli(args, legacy)
        expect(loud.status, loud.stderr).toBe(0)
        expect(loud.stderr).toContain("warning:")
        const silent = sb.cli(args, legacy, { ...sb.env, SUPERVISOR_LOG: "error" })
        expect(silent.status, silent.stderr).toBe(0)
        expect(silent.stderr).toBe("")
      }

      // the words pitchfork's users grep for
      const parse = sb.project("broken", "[daemons.web\n")
      expect(sb.cli(["config", "validate"], parse).stderr).toMatch(/TOML parse error/)
      expect(sb.cli(["logs", "web", "--level", "loud"], dir).stderr).toContain("invalid level 'loud'")
      expect(sb.cli(["start", "a--b"], dir).stderr).toContain("'--'")
      expect(sb.cli(["settings", "get", "general.intervl"], dir).stderr).toContain("Did you mean")
    },
    T,
  )
})
