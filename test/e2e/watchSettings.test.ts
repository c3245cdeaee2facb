/**
 * Watch settings changed while the supervisor runs, through the built CLI with real files: a
 * longer debounce and a new poll cadence written into the user config apply without a restart.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

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
`,
  )
})
afterAll(() => sb.destroy())

describe("watch settings (e2e)", () => {
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
})
