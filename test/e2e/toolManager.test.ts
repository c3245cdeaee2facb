/**
 * tool_manager through the built CLI: a stand-in `mise` (a shell script the test writes) logs
 * how it was called, sets a variable and execs the rest, as `mise exec --` does.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"

const T = 30_000
let sb: DaemonSandbox
let bin: string

const FAKE_MISE = `#!/bin/sh
echo "mise $*" >> "$(dirname "$0")/mise.log"
[ "$1" = exec ] && [ "$2" = "--" ] && shift 2
export FROM_MISE=yes
exec "$@"
`

beforeEach(() => {
  sb = makeDaemonSandbox()
  bin = sb.dir("bin")
  writeFileSync(join(bin, "mise"), FAKE_MISE)
  chmodSync(join(bin, "mise"), 0o755)
})
afterEach(() => sb.destroy())

const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").trim() : "")

describe("tool_manager (e2e)", () => {
  it(
    "tool_manager = true runs the command as `mise exec -- sh -c <run>`, found on the daemon's PATH",
    async () => {
      const dir = sb.project(
        "app",
        `[daemons.web]\nrun = "echo FROM_MISE=$FROM_MISE > out.txt; exec sleep 300"\nready_delay = 0.2\ntool_manager = true\nenv = { PATH = "${bin}:${process.env.PATH}" }\n\n[daemons.plain]\nrun = "echo FROM_MISE=$FROM_MISE > plain.txt; exec sleep 300"\nready_delay = 0.2\nenv = { PATH = "${bin}:${process.env.PATH}" }\n`,
      )
      const r = sb.cli(["start", "web", "plain"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(await waitFor("out.txt", () => read(join(dir, "out.txt")))).toBe("FROM_MISE=yes")
      expect(await waitFor("plain.txt", () => read(join(dir, "plain.txt")))).toBe("FROM_MISE=")
      expect(read(join(bin, "mise.log"))).toBe(
        "mise exec -- sh -c echo FROM_MISE=$FROM_MISE > out.txt; exec sleep 300",
      )
    },
    T,
  )

  it(
    "the manager missing: start fails with exit 1, naming the binary and the fix",
    () => {
      const dir = sb.project("app", `[daemons.web]\nrun = "exec sleep 300"\ntool_manager = true\n`)
      const r = sb.cli(["start", "web"], dir, { ...sb.env, PATH: process.env.PATH ?? "/usr/bin:/bin" })
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(
        "app/web failed to start: cannot start daemon app/web: daemons.web.tool_manager is on but `mise` was not found on the daemon's PATH",
      )
      expect(r.stderr).toContain(
        "set settings.general.tool_manager_bin to its full path, or set daemons.web.tool_manager = false",
      )
      expect(r.stderr).not.toMatch(STACK_LINE)
    },
    T,
  )

  it(
    "general.tool_manager (SUPERVISOR_GENERAL_TOOL_MANAGER) with tool_manager_bin: every daemon is wrapped unless it opts out",
    async () => {
      const env = {
        ...sb.env,
        SUPERVISOR_GENERAL_TOOL_MANAGER: "true",
        SUPERVISOR_GENERAL_TOOL_MANAGER_BIN: join(bin, "mise"),
      }
      const dir = sb.project(
        "app",
        `[daemons.web]\nrun = "echo FROM_MISE=$FROM_MISE > out.txt; exec sleep 300"\nready_delay = 0.2\n\n[daemons.optout]\nrun = "echo FROM_MISE=$FROM_MISE > optout.txt; exec sleep 300"\nready_delay = 0.2\ntool_manager = false\n`,
      )
      const r = sb.cli(["start", "web", "optout"], dir, env)
      expect(r.status, r.stderr).toBe(0)
      expect(await waitFor("out.txt", () => read(join(dir, "out.txt")))).toBe("FROM_MISE=yes")
      expect(await waitFor("optout.txt", () => read(join(dir, "optout.txt")))).toBe("FROM_MISE=")
    },
    T,
  )
})
