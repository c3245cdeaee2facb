/**
 * Watch while the supervisor runs, through the built CLI with real files: a longer debounce and a
 * new poll cadence written into the user config apply without a restart; a watcher that cannot be
 * set up (a symbolic link loop in the watched tree, which fails for root too) is reported in the
 * daemon's log and `status`, tried again, and cleared once it is set up.
 */
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonEntry,
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  STACK_LINE,
  storedLogs,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)
const lines = async (id: string) => (await storedLogs(sb.stateDir, id)).map((e) => e.message)

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `[daemons.polled]
run = "exec sleep 300"
ready_delay = 0.1
watch = ["a.txt"]
watch_mode = "poll"

[daemons.looped]
run = "exec sleep 300"
ready_delay = 0.1
watch = ["src/**/*.js"]
`,
  )
  // two watched names that are links to each other: stat() of either fails with ELOOP
  mkdirSync(join(dir, "src"))
  symlinkSync("b.js", join(dir, "src", "a.js"))
  symlinkSync("a.js", join(dir, "src", "b.js"))
})
afterAll(() => sb.destroy())

describe("watch while the supervisor runs (e2e)", () => {
  it(
    "file_watch_debounce and watch_poll_interval edited in the user config apply without a restart",
    async () => {
      expect(cli("start", "polled").status).toBe(0)
      await waitFor("the watcher", async () =>
        (await lines("app/polled")).includes("[supervisor] watch: watching a.txt (polling every 500ms)"),
      )
      const supervisor = (JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }).pid
      const pid = (await daemonEntry(sb.stateDir, "app/polled"))?.pid as number
      sb.write({
        "home/.config/supervisor/config.toml":
          '[settings.supervisor]\nfile_watch_debounce = "4s"\nwatch_poll_interval = "200ms"\n',
      })
      // the new cadence reopens the watcher: the settings read with it are in force
      await waitFor("the watcher reopened with the new cadence", async () =>
        (await lines("app/polled")).includes("[supervisor] watch: watching a.txt (polling every 200ms)"),
      )
      const written = Date.now()
      writeFileSync(join(dir, "a.txt"), "x")
      const restarted = await waitFor(
        "the restart after the 4 s debounce",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/polled")
          return e?.pid != null && e.pid !== pid ? Date.now() : undefined
        },
        { timeout: 15_000 },
      )
      // never before the debounce has passed since the write
      expect(restarted - written).toBeGreaterThanOrEqual(4000)
      expect((await lines("app/polled")).filter((l) => l.startsWith("[supervisor] restarting"))).toEqual([
        "[supervisor] restarting: watch (a.txt changed)",
      ])
      const status = JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }
      expect(status.pid).toBe(supervisor)
    },
    T,
  )

  it(
    "a watcher that cannot be set up: in the daemon's log and status (text, --json, API), tried again until it is",
    async () => {
      expect(cli("start", "looped").status).toBe(0)
      const failed =
        /^cannot watch files: ELOOP: too many symbolic links encountered, stat '.*\/src\/[ab]\.js'$/
      const logged = await waitFor("the daemon's log to say its files cannot be watched", async () =>
        (await lines("app/looped")).find((l) => l.startsWith("[supervisor] watch: cannot watch files")),
      )
      const problem = logged.replace("[supervisor] watch: ", "")
      expect(problem).toMatch(failed)
      // status: text, --json, and the API's entry
      const text = cli("status", "looped")
      expect(text.status).toBe(0)
      expect(text.stdout).toContain(`Watch: ${problem}\n`)
      expect(text.stdout).toContain("Status: running")
      const json = JSON.parse(cli("status", "looped", "--json").stdout) as { watch_problem: string | null }
      expect(json.watch_problem).toBe(problem)
      const entry = (await daemonEntry(sb.stateDir, "app/looped")) as DaemonEntry & {
        readonly watch_problem: string | null
      }
      expect(entry.watch_problem).toBe(problem)
      expect(entry.status.type).toBe("running")
      expect(supervisorPids(sb.stateDir).length).toBe(1)
      // the loop is removed: a later try sets the watcher up, and the problem is gone
      unlinkSync(join(dir, "src", "a.js"))
      unlinkSync(join(dir, "src", "b.js"))
      await waitFor(
        "the watcher to be set up",
        async () => (await lines("app/looped")).includes("[supervisor] watch: watching src/**/*.js (native)"),
        { timeout: 20_000 },
      )
      const after = cli("status", "looped")
      expect(after.stdout).not.toContain("Watch:")
      expect(after.stderr).not.toMatch(STACK_LINE)
      expect(JSON.parse(cli("status", "looped", "--json").stdout).watch_problem).toBeNull()
      expect((await lines("app/looped")).filter((l) => l.includes("cannot watch files"))).toEqual([logged])
    },
    T,
  )
})
