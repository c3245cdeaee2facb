/**
 * The event stream through the built CLI (`supervisor events`) and the HTTP API on the Unix socket:
 * a start with a dependency, a crash and its retry, a watch restart and a configuration error
 * arrive in order; `since` resumes without loss; a client that reads nothing is cut off from what
 * it missed by a dropped marker, not by the supervisor's memory.
 */
import { writeFileSync } from "node:fs"
import { request } from "node:http"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiPost,
  type DaemonSandbox,
  makeDaemonSandbox,
  type Running,
  spawnCli,
  storedLogs,
  waitFor,
} from "./harness.js"

const fetchPost = (stateDir: string, path: string) => apiPost(stateDir, path, undefined)

const T = 120_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)

interface Item {
  readonly _tag: string
  readonly seq?: number
  readonly id?: string
  readonly from?: string
  readonly to?: string
  readonly reason?: string
  readonly exit_code?: number | null
  readonly source?: string
  readonly action?: string
  readonly detail?: string
  readonly file?: string
  readonly line?: number | null
  readonly key?: string | null
  readonly first?: number
  readonly last?: number
}
const parse = (text: string): Array<Item> =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Item)

const TOML = `namespace = "app"

[daemons.db]
run = "exec sleep 300"
ready_delay = 0

[daemons.web]
run = "exec sleep 300"
depends = ["db"]
ready_delay = 0.2
watch = ["trigger.txt"]

[daemons.churn1]
run = "exec sleep 300"
ready_delay = 0

[daemons.churn2]
run = "exec sleep 300"
ready_delay = 0

[daemons.churn3]
run = "exec sleep 300"
ready_delay = 0

[daemons.crasher]
run = "sleep 0.2; exit 3"
ready_delay = 5
retry = 1
`

/** `supervisor events --json --since 0`, followed for the whole file. */
let follower: Running

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project("app", TOML)
  expect(cli("supervisor", "start").status).toBe(0)
  follower = spawnCli(["events", "--json", "--since", "0"], { cwd: dir, env: sb.env })
})
afterAll(() => {
  follower?.child.kill("SIGTERM")
  sb.destroy()
})

/** Index of the first event at or after `from` that matches `m`; fails the test when none does. */
const indexOf = (events: ReadonlyArray<Item>, m: Partial<Item>, from = 0): number => {
  const i = events.findIndex(
    (e, k) =>
      k >= from &&
      Object.entries(m).every(([key, v]) => (e as unknown as Record<string, unknown>)[key] === v),
  )
  if (i < 0)
    throw new Error(
      `no event like ${JSON.stringify(m)} after #${from} in:\n${events.map((e) => JSON.stringify(e)).join("\n")}`,
    )
  return i
}

describe("supervisor events (e2e)", () => {
  it(
    "a start with a dependency, a crash and its retry, a watch restart and a config error, in order",
    async () => {
      expect(cli("start", "web").status).toBe(0)
      const crashed = cli("start", "crasher")
      expect(crashed.status).toBe(1)
      await waitFor("the web watcher", async () =>
        (await storedLogs(sb.stateDir, "app/web")).some((e) =>
          e.message.startsWith("[supervisor] watch: watching"),
        ),
      )
      writeFileSync(join(dir, "trigger.txt"), "go")
      await waitFor("the watch restart's events", () =>
        parse(follower.stdout()).some((e) => e._tag === "AutomationAction" && e.source === "watch"),
      )
      await waitFor("web running again", () => {
        const es = parse(follower.stdout())
        const act = es.findIndex((e) => e._tag === "AutomationAction")
        return es.some((e, k) => k > act && e.id === "app/web" && e.to === "running")
      })
      writeFileSync(join(dir, "supervisor.toml"), `${TOML}\n[daemons.broken]\nrun = 3\n`)
      await waitFor(
        "the config error",
        () => parse(follower.stdout()).some((e) => e._tag === "ConfigInvalid"),
        {
          timeout: 30_000,
        },
      )
      const events = parse(follower.stdout())
      // no loss, no repeat: seq 1, 2, 3, ...
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      // the dependency first, then the daemon
      const dbReady = indexOf(events, { id: "app/db", to: "running", reason: "ready" })
      const webWaiting = indexOf(events, { id: "app/web", from: "available", to: "waiting" })
      const webReady = indexOf(events, { _tag: "ReadinessPassed", id: "app/web" }, webWaiting)
      expect(indexOf(events, { id: "app/db", to: "waiting", reason: "cli" })).toBeLessThan(dbReady)
      expect(dbReady).toBeLessThan(webWaiting)
      // the crash, its retry, the second crash
      const crash = indexOf(events, { id: "app/crasher", to: "errored", reason: "exited", exit_code: 3 })
      const retry = indexOf(events, { _tag: "RetryScheduled", id: "app/crasher" }, crash)
      const again = indexOf(
        events,
        { id: "app/crasher", from: "errored", to: "waiting", reason: "retry" },
        retry,
      )
      indexOf(events, { id: "app/crasher", to: "errored", reason: "exited" }, again)
      expect(webReady).toBeLessThan(crash)
      // the watch restart: what and why, then the stop and the new run
      const watch = indexOf(events, {
        _tag: "AutomationAction",
        id: "app/web",
        source: "watch",
        action: "restart",
        detail: "trigger.txt changed",
      })
      const stopping = indexOf(events, { id: "app/web", to: "stopping", reason: "watch" }, watch)
      indexOf(events, { id: "app/web", to: "running", reason: "ready" }, stopping)
      // the configuration error names the file, the line and the key
      const invalid = indexOf(events, { _tag: "ConfigInvalid", key: "daemons.broken.run" }, stopping)
      writeFileSync(join(dir, "supervisor.toml"), TOML)
      expect(events[invalid]).toMatchObject({
        file: join(dir, "supervisor.toml"),
        line: TOML.split("\n").length + 2,
      })
    },
    T,
  )

  it(
    "--since resumes without loss; IDS filter; the readable form; a reader that goes away ends it with 0",
    async () => {
      const full = parse(follower.stdout())
      const k = Math.floor(full.length / 2)
      const resumed = spawnCli(["events", "--json", "--since", String(k)], { cwd: dir, env: sb.env })
      await waitFor("the resumed stream", () => parse(resumed.stdout()).length >= full.length - k)
      expect(parse(resumed.stdout()).slice(0, full.length - k)).toEqual(full.slice(k))
      resumed.child.kill("SIGTERM")
      await resumed.exited
      // one daemon, readable: time, daemon, what happened
      const plain = spawnCli(["events", "crasher", "--since", "0"], { cwd: dir, env: sb.env })
      await waitFor("crasher's retry", () => plain.stdout().includes("retry 1 of 1"))
      expect(plain.stdout()).toMatch(
        /^\d\d:\d\d:\d\d\.\d{3} app\/crasher available → waiting \(cli\), pid \d+$/m,
      )
      expect(plain.stdout()).toMatch(
        /app\/crasher waiting → errored \(exited\), pid \d+, exit code 3, exited with code 3$/m,
      )
      expect(plain.stdout()).not.toContain("app/web")
      plain.child.kill("SIGTERM")
      await plain.exited
      // `| head`: the reader leaves; the next event's write fails with EPIPE; exit 0, nothing said
      const head = spawnCli(["events", "--since", "0"], { cwd: dir, env: sb.env })
      await waitFor("a line", () => head.stdout().includes("app/db"))
      head.child.stdout?.destroy()
      expect(cli("restart", "db").status).toBe(0)
      const end = await head.exited
      expect(head.stderr()).toBe("")
      expect(end).toEqual({ code: 0, signal: null })
    },
    T,
  )

  it(
    "?entries=true: each event about a daemon but a passed readiness is followed by its entry, without usage figures",
    async () => {
      expect(cli("start", "churn1").status).toBe(0)
      const items: Array<
        Item & { entry?: { id: { qualified: string }; pid: number | null; memory_bytes: number } }
      > = []
      const req = request(
        {
          socketPath: join(sb.stateDir, "sock", "api.sock"),
          path: "/api/events?entries=true&id=app%2Fchurn1",
        },
        (res) => {
          let rest = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => {
            const lines = (rest + chunk).split("\n")
            rest = lines.pop() ?? ""
            for (const l of lines) if (l.trim() !== "") items.push(JSON.parse(l))
          })
        },
      )
      req.on("error", () => undefined)
      req.end()
      await waitFor("the stream's headers", () => req.socket !== null && req.socket.bytesRead > 0)
      expect(cli("restart", "churn1").status).toBe(0)
      await waitFor("the running event and the entry after it", () =>
        items.some(
          (e, i) => e._tag === "DaemonStateChanged" && e.to === "running" && items[i + 1] !== undefined,
        ),
      )
      req.destroy()
      const events = items.filter((e) => e._tag !== "DaemonEntry")
      expect(events.length).toBeGreaterThan(0)
      items.forEach((e, i) => {
        if (e._tag === "DaemonEntry") return
        const next = items[i + 1]
        if (next === undefined) return
        // a readiness that passed brings no entry: the change to running before it did
        if (e._tag === "ReadinessPassed") {
          expect(next._tag).not.toBe("DaemonEntry")
          return
        }
        expect(next._tag, JSON.stringify(e)).toBe("DaemonEntry")
        expect(next.id).toBe("app/churn1")
        expect(next.entry?.id.qualified).toBe("app/churn1")
        expect(next.entry?.memory_bytes).toBe(0)
      })
      const running = items.findIndex((e) => e._tag === "DaemonStateChanged" && e.to === "running")
      expect(items[running + 1]?.entry?.pid).toBe((items[running] as { pid?: number }).pid)
    },
    T,
  )

  it(
    "a client that reads nothing while thousands of events come gets a dropped marker, then the latest",
    async () => {
      // few retained: what a reader that reads nothing misses is soon more than the supervisor keeps
      const own = makeDaemonSandbox()
      try {
        own.env.SUPERVISOR_SUPERVISOR_EVENTS_RETAINED = "20"
        const churn = [1, 2, 3, 4].map(
          (n) => `[daemons.churn${n}]\nrun = "exec sleep 300"\nready_delay = 0\n`,
        )
        const at = own.project("app", `namespace = "app"\n${churn.join("\n")}`)
        expect(own.cli(["start", "churn1", "churn2", "churn3", "churn4"], at).status).toBe(0)
        const socket = net.connect(join(own.stateDir, "sock", "api.sock"))
        await new Promise<void>((res) => socket.once("connect", () => res()))
        socket.pause() // reads nothing from here on
        let text = ""
        socket.setEncoding("utf8")
        socket.write("GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        // 5 events per restart (stopping, stopped, waiting, running, ready): 1600 events, more than
        // the retained 20 plus what the socket's buffers hold (about 1000 events of 200 bytes)
        const restart = (id: string) =>
          fetchPost(own.stateDir, `/api/daemons/${encodeURIComponent(id)}/restart`)
        for (let round = 0; round < 80; round++)
          await Promise.all(["app/churn1", "app/churn2", "app/churn3", "app/churn4"].map(restart))
        socket.on("data", (d: string) => {
          text += d
        })
        socket.resume()
        // the last restart's last event: a daemon ready again
        await waitFor(
          "the dropped marker, then events up to the latest",
          () => {
            const items = parse(text)
            return items.some((e) => e._tag === "EventsDropped") && items.at(-1)?._tag === "ReadinessPassed"
          },
          { timeout: 60_000 },
        )
        socket.destroy()
        const items = parse(text)
        // every seq is accounted for: read, or inside the range of a marker just before the next one
        let next = items[0]?.seq ?? items[0]?.first ?? 1
        for (const e of items) {
          if (e._tag === "EventsDropped") {
            expect(e.first).toBe(next)
            next = (e.last ?? 0) + 1
          } else {
            expect(e.seq).toBe(next)
            next += 1
          }
        }
        const markers = items.filter((e) => e._tag === "EventsDropped")
        expect(markers.length).toBeGreaterThan(0)
        // after the last gap, no more than the 20 retained events: the rest was not held for it
        const lastMarker = items.findLastIndex((e) => e._tag === "EventsDropped")
        expect(items.length - lastMarker - 1).toBeLessThanOrEqual(20)
      } finally {
        own.destroy()
      }
    },
    T,
  )
})
