/**
 * A slug of the user config (`[slugs]`) typed where a daemon ID goes, as pitchfork takes it:
 * `start`, `status`, `logs`, `restart` and `stop` through the built CLI, from another project,
 * with and without a running supervisor; a real daemon's name wins over a slug of that name.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, waitFor } from "./harness.js"

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

describe("slugs as daemon IDs", () => {
  it(
    "start, status, logs, restart and stop take a slug from another project; a real daemon's name wins",
    async () => {
      sb = makeDaemonSandbox()
      const s = sb
      const shop = s.project(
        "shop",
        'namespace = "shop"\n[daemons.web]\nrun = "echo web-says-hello; exec sleep 300"\nready_delay = 0\n',
      )
      const other = s.project(
        "other",
        'namespace = "other"\n[daemons.api]\nrun = "exec sleep 301"\nready_delay = 0\n',
      )
      writeUser(
        s,
        `[slugs]\nstore = { dir = ${JSON.stringify(shop)}, daemon = "web" }\napi = { dir = ${JSON.stringify(shop)}, daemon = "web" }\n`,
      )
      // no supervisor yet: the full CLI, from a project that does not configure shop/web
      const started = s.cli(["start", "store"], other)
      expect(started.stderr).not.toContain("not found")
      expect(started.status).toBe(0)
      expect(started.stdout).toContain("shop/web")
      expect((await daemonEntry(s.stateDir, "shop/web"))?.status.type).toBe("running")

      const status = s.cli(["status", "store"], other)
      expect(status.status).toBe(0)
      expect(status.stdout).toMatch(/^Name: shop\/web$/m)
      expect(status.stdout).toMatch(/^Status: running$/m)

      await waitFor("the daemon's line in its log", async () => {
        const logs = s.cli(["logs", "store", "--no-timestamp"], other)
        return logs.status === 0 && logs.stdout.includes("web-says-hello") ? logs : undefined
      })

      const pid = (await daemonEntry(s.stateDir, "shop/web"))?.pid
      const restarted = s.cli(["restart", "store"], other)
      expect(restarted.status).toBe(0)
      expect((await daemonEntry(s.stateDir, "shop/web"))?.pid).not.toBe(pid)

      // a real daemon's name wins over the slug `api`
      const real = s.cli(["status", "api"], other)
      expect(real.status).toBe(0)
      expect(real.stdout).toMatch(/^Name: other\/api$/m)

      const stopped = s.cli(["stop", "store"], other)
      expect(stopped.status).toBe(0)
      expect(stopped.stdout).toContain("shop/web stopped")

      // the supervisor running and knowing shop/web: `start` is answered without the CLI bundle
      const again = s.cli(["start", "store"], s.root)
      expect(again.status).toBe(0)
      expect((await daemonEntry(s.stateDir, "shop/web"))?.status.type).toBe("running")
      expect(s.cli(["stop", "store"], s.root).status).toBe(0)
    },
    T,
  )

  it(
    "a slug whose daemon is configured nowhere says so, naming the slug's directory",
    () => {
      sb = makeDaemonSandbox()
      const shop = sb.project("shop", 'namespace = "shop"\n[daemons.web]\nrun = "exec sleep 300"\n')
      writeUser(sb, `[slugs]\nstore = { dir = ${JSON.stringify(shop)}, daemon = "db" }\n`)
      const r = sb.cli(["status", "store"], sb.root)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(`slug store names daemon db of ${shop}, which is not configured there`)
    },
    T,
  )
})
