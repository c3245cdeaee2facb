/**
 * Watch through the built CLI, with real processes and real files: a burst of writes gives one
 * restart; a stopped daemon ignores changes; `**` globs; polling; a directory that appears later;
 * node_modules left out. Each test waits for the daemon's `[supervisor] watch: watching` line
 * (its watcher is set up) before it writes. Each restart is a command of the protocol, counted in
 * /metrics.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import {
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  processesOf,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)
const write = (rel: string, content: string) => {
  mkdirSync(join(dir, rel, ".."), { recursive: true })
  writeFileSync(join(dir, rel), content)
}
const lines = async (id: string) => (await storedLogs(sb.stateDir, id)).map((e) => e.message)
const restarts = async (id: string) =>
  (await lines(id)).filter((l) => l.startsWith("[supervisor] restarting: watch"))
/** Starts the daemon and waits until its watcher is set up; its pid. */
const startWatched = async (name: string) => {
  expect(cli("start", name).status).toBe(0)
  await waitFor(`the watcher of ${name}`, async () =>
    (await lines(`app/${name}`)).some((l) => l.startsWith("[supervisor] watch: watching")),
  )
  const e = await daemonEntry(sb.stateDir, `app/${name}`)
  expect(e?.status.type).toBe("running")
  return e?.pid as number
}
/** Waits for the daemon to run with another pid than `pid`; the new pid. */
const restartedFrom = (name: string, pid: number) =>
  waitFor(`${name} to run again with a new pid`, async () => {
    const e = await daemonEntry(sb.stateDir, `app/${name}`)
    return e?.status.type === "running" && e.pid !== null && e.pid !== pid ? e.pid : undefined
  })

beforeAll(() => {
  sb = makeDaemonSandbox()
  const daemon = (name: string, extra: string) =>
    `[daemons.${name}]\nrun = "exec sleep 300"\nready_delay = 0.1\n${extra}\n`
  dir = sb.project(
    "app",
    [
      daemon("web", 'watch = ["*.js"]'),
      daemon("idle", 'watch = ["shared.txt"]'),
      daemon("witness", 'watch = ["shared.txt"]'),
      daemon("deep", 'watch = ["src/**/*.ts"]'),
      daemon("polled", 'watch = ["poll.txt"]\nwatch_mode = "poll"'),
      daemon("later", 'watch = ["gen/out/*.txt"]'),
      daemon("edited", 'watch = ["first.txt"]'),
      daemon("live", 'watch = ["old.txt"]'),
    ].join("\n"),
  )
  mkdirSync(join(dir, "src"))
})
afterAll(() => sb.destroy())

describe("watch (e2e)", () => {
  it(
    "a burst of writes to a watched file restarts the daemon once, and its log names the file",
    async () => {
      const pid = await startWatched("web")
      const sent = async () => (await commandCount(sb.stateDir, "Restart", "watch")) - before
      const before = await commandCount(sb.stateDir, "Restart", "watch")
      // ten writes, 50 ms apart: well within the 1 s debounce of each other
      for (let i = 0; i < 10; i++) {
        write("app.js", `// ${i}\n`)
        await new Promise((r) => setTimeout(r, 50))
      }
      const next = await restartedFrom("web", pid)
      expect(await restarts("app/web")).toEqual(["[supervisor] restarting: watch (app.js changed)"])
      // the debounced burst was one Restart command sent to the supervisor's one handler, from watch
      expect(await sent()).toBe(1)
      // a later change is a second restart, naming only its own file: nothing of the burst was left
      write("other.js", "x")
      await restartedFrom("web", next)
      expect(await restarts("app/web")).toEqual([
        "[supervisor] restarting: watch (app.js changed)",
        "[supervisor] restarting: watch (other.js changed)",
      ])
      // a file no pattern matches changes nothing
      write("notes.md", "x")
      write("sub/deeper.js", "x")
      write("third.js", "x")
      await waitFor("the third restart", async () => (await restarts("app/web")).length === 3)
      expect((await restarts("app/web"))[2]).toBe("[supervisor] restarting: watch (third.js changed)")
      expect(await sent()).toBe(3)
    },
    T,
  )

  it(
    "a stopped daemon ignores changes to its files",
    async () => {
      const idlePid = await startWatched("idle")
      expect(cli("stop", "idle").status).toBe(0)
      const witnessPid = await startWatched("witness")
      write("shared.txt", "changed")
      // the running daemon watching the same file is restarted: the change was seen
      await restartedFrom("witness", witnessPid)
      const idle = await daemonEntry(sb.stateDir, "app/idle")
      expect(idle?.status.type).toBe("stopped")
      expect(idle?.pid).toBeNull()
      expect(await restarts("app/idle")).toEqual([])
      void idlePid
    },
    T,
  )

  it(
    "src/**/*.ts: a file in a directory made after the start, at any depth; node_modules left out",
    async () => {
      const pid = await startWatched("deep")
      write("src/node_modules/lib/index.ts", "x")
      write("src/a/b/c.ts", "x")
      await restartedFrom("deep", pid)
      expect(await restarts("app/deep")).toEqual(["[supervisor] restarting: watch (src/a/b/c.ts changed)"])
    },
    T,
  )

  it(
    "watch_mode = poll: a change is found by polling",
    async () => {
      const pid = await startWatched("polled")
      expect(await lines("app/polled")).toContain(
        "[supervisor] watch: watching poll.txt (polling every 500ms)",
      )
      write("poll.txt", "x")
      await restartedFrom("polled", pid)
      expect(await restarts("app/polled")).toEqual(["[supervisor] restarting: watch (poll.txt changed)"])
    },
    T,
  )

  it(
    "a pattern on a directory that does not exist yet: watched once it appears",
    async () => {
      const pid = await startWatched("later")
      write("gen/out/result.txt", "x")
      await restartedFrom("later", pid)
      expect(await restarts("app/later")).toEqual([
        "[supervisor] restarting: watch (gen/out/result.txt changed)",
      ])
    },
    T,
  )

  it(
    "a restart with an edited watch list watches the new list",
    async () => {
      await startWatched("edited")
      const toml = join(dir, "supervisor.toml")
      writeFileSync(
        toml,
        readFileSync(toml, "utf8").replace('watch = ["first.txt"]', 'watch = ["second.txt"]'),
      )
      expect(cli("restart", "edited").status).toBe(0)
      await waitFor("the new list to be watched", async () =>
        (await lines("app/edited")).includes("[supervisor] watch: watching second.txt (native)"),
      )
      const pid = (await daemonEntry(sb.stateDir, "app/edited"))?.pid as number
      write("first.txt", "x")
      write("second.txt", "x")
      await restartedFrom("edited", pid)
      expect(await restarts("app/edited")).toEqual(["[supervisor] restarting: watch (second.txt changed)"])
    },
    T,
  )

  it(
    "a watch list edited in supervisor.toml applies at once: no restart of the daemon or the supervisor",
    async () => {
      const pid = await startWatched("live")
      const supervisorStatus = JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }
      const toml = join(dir, "supervisor.toml")
      writeFileSync(toml, readFileSync(toml, "utf8").replace('watch = ["old.txt"]', 'watch = ["new.txt"]'))
      await waitFor("the edited list to be watched", async () =>
        (await lines("app/live")).includes("[supervisor] watch: watching new.txt (native)"),
      )
      expect((await daemonEntry(sb.stateDir, "app/live"))?.pid).toBe(pid)
      write("old.txt", "x")
      write("new.txt", "x")
      await restartedFrom("live", pid)
      expect(await restarts("app/live")).toEqual(["[supervisor] restarting: watch (new.txt changed)"])
      expect((JSON.parse(cli("supervisor", "status", "--json").stdout) as { pid: number }).pid).toBe(
        supervisorStatus.pid,
      )
    },
    T,
  )

  it(
    "the supervisor with open watchers stops cleanly, and its daemons with it",
    async () => {
      expect(cli("supervisor", "stop").status).toBe(0)
      await waitFor("no supervisor and no daemon left", () => processesOf(sb.stateDir).length === 0)
    },
    T,
  )
})
