/**
 * `supervisor logs` against a real supervisor: -n, --since/--until, --grep,
 * --case-sensitive, --regex, --raw, --no-timestamp, --json, --tail/-f and
 * --clear. The daemons are small shell scripts; the store indexes their output
 * asynchronously, so every test first waits (polling) for the lines it reads.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  type LogEntry,
  makeDaemonSandbox,
  spawnCli,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 30_000
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

const daemon = (name: string) => `[daemons.${name}]\nrun = "exec sh ${name}.sh"\nready_delay = 0.2\n`
/** A script that prints `before`, waits for `<name>.go`, prints `after`, then idles. */
const gated = (before: Array<string>, gate: string, after: Array<string>) =>
  [
    ...before.map((l) => `echo '${l}'`),
    `while [ ! -f ${gate} ]; do sleep 0.05; done`,
    ...after.map((l) => `echo '${l}'`),
    "exec sleep 300",
    "",
  ].join("\n")

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)
const lines = (...args: Array<string>): Array<string> => {
  const r = cli("logs", ...args)
  expect(r.status, r.stderr).toBe(0)
  return r.stdout.split("\n").filter((l) => l !== "")
}
const entries = (...args: Array<string>): Array<LogEntry> => {
  const r = cli("logs", "--json", ...args)
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Array<LogEntry>
}
/** Waits until `logs ID` shows `text` (the store indexes output asynchronously). */
const logged = (id: string, text: string) =>
  waitFor(`"${text}" in the logs of ${id}`, async () =>
    (await storedLogs(sb.stateDir, id)).some((e) => e.message.includes(text)),
  )
const trigger = (gate: string) => writeFileSync(join(proj, gate), "")

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "logs",
    ["talker", "other", "timed", "follower", "clearme", "flood", "ticker", "wide"].map(daemon).join("\n"),
  )
  sb.write({
    "logs/talker.sh": [
      "echo 'Hello World'",
      "echo 'hello there'",
      "echo 'goodbye' >&2",
      "printf '\\033[31mred alert\\033[0m\\n'",
      "echo 'line 5'",
      "exec sleep 300",
      "",
    ].join("\n"),
    "logs/other.sh": "echo 'other says hi'\nexec sleep 300\n",
    "logs/timed.sh": gated(["early line"], "timed.go", ["late line"]),
    "logs/follower.sh": gated(["before 1", "before 2", "before 3"], "follower.go", ["after go"]),
    "logs/clearme.sh": gated(["first run line"], "clearme.go", ["after clear"]),
    "logs/ticker.sh": "while :; do echo tick; sleep 0.05; done\n",
    // ten lines of 30,000 "é" (60 KB each): the answer comes in many reads, some of which end
    // inside a character
    "logs/wide.sh":
      "for i in 1 2 3 4 5 6 7 8 9 10; do head -c 30000 /dev/zero | tr '\\0' x | sed 's/x/é/g'; echo \" $i\"; done\nexec sleep 300\n",
    "logs/flood.sh": 'i=0\nwhile [ $i -lt 5000 ]; do i=$((i+1)); echo "flood $i"; done\nexec sleep 300\n',
  })
  const r = sb.cli(["start", "talker", "other"], proj)
  expect(r.status, r.stderr).toBe(0)
  await logged("logs/talker", "line 5")
  await logged("logs/other", "other says hi")
}, T)
afterAll(() => sb.destroy(), T)

describe("reading", () => {
  it(
    "logs ID prints each line with its timestamp, stdout and stderr alike",
    () => {
      const out = lines("talker")
      expect(out).toHaveLength(5)
      expect(out[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} Hello World$/)
      expect(out[2]).toMatch(/ goodbye$/)
    },
    T,
  )

  it(
    "--no-timestamp prints the bare lines; -n N the last N",
    async () => {
      expect(lines("talker", "--no-timestamp", "--raw")).toEqual([
        "Hello World",
        "hello there",
        "goodbye",
        "red alert",
        "line 5",
      ])
      expect(lines("talker", "--no-timestamp", "--raw", "-n", "2")).toEqual(["red alert", "line 5"])
      // the value attached, as tail takes it
      expect(lines("talker", "--no-timestamp", "--raw", "-n2")).toEqual(["red alert", "line 5"])
      expect(lines("talker", "--no-timestamp", "--lines", "1")).toEqual(["line 5"])
    },
    T,
  )

  it(
    "--strip-ansi (or --raw) strips ANSI colour codes, which are kept otherwise",
    async () => {
      const coloured = lines("talker", "--no-timestamp", "--grep", "alert")
      expect(coloured).toEqual(["\u001b[31mred alert\u001b[0m"])
      expect(lines("talker", "--no-timestamp", "--grep", "alert", "--strip-ansi")).toEqual(["red alert"])
      // one daemon, no filters: the supervisor's text of the log (the quick client when one runs)
      expect(lines("talker", "--no-timestamp", "--strip-ansi")).toEqual(
        lines("talker", "--no-timestamp", "--raw"),
      )
      expect(lines("talker", "--no-timestamp", "--strip-ansi")).toContain("red alert")
      expect(lines("talker", "--no-timestamp", "--grep", "alert", "--raw")).toEqual(["red alert"])
      expect(entries("talker", "--raw", "--grep", "alert").map((e) => e.message)).toEqual(["red alert"])
    },
    T,
  )

  it(
    "--grep is case-insensitive unless --case-sensitive",
    async () => {
      const grep = (...args: Array<string>) => lines("talker", "--no-timestamp", ...args)
      expect(grep("--grep", "hello")).toEqual(["Hello World", "hello there"])
      expect(grep("--grep", "HELLO")).toEqual(["Hello World", "hello there"])
      expect(grep("--grep", "hello", "--case-sensitive")).toEqual(["hello there"])
      expect(grep("--grep", "HELLO", "--case-sensitive")).toEqual([])
    },
    T,
  )

  it(
    "--regex matches a regular expression (case-insensitive unless --case-sensitive)",
    async () => {
      const rx = (...args: Array<string>) => lines("talker", "--no-timestamp", "--raw", ...args)
      expect(rx("--regex", "^hel+o ")).toEqual(["Hello World", "hello there"])
      expect(rx("--regex", "^hel+o ", "--case-sensitive")).toEqual(["hello there"])
      expect(rx("--regex", "(bye|\\d)$")).toEqual(["goodbye", "line 5"])
      const bad = cli("logs", "talker", "--regex", "(")
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain("invalid --regex")
    },
    T,
  )

  it(
    "--json prints the spec's log entries: increasing id, YYYY-MM-DD HH:MM:SS, qualified daemon_id",
    async () => {
      const es = entries("talker")
      expect(es.map((e) => e.message)).toEqual([
        "Hello World",
        "hello there",
        "goodbye",
        "\u001b[31mred alert\u001b[0m",
        "line 5",
      ])
      for (const [i, e] of es.entries()) {
        expect(Object.keys(e).sort()).toEqual(["daemon_id", "id", "message", "timestamp"])
        expect(e.daemon_id).toBe("logs/talker")
        expect(e.timestamp).toMatch(TIMESTAMP)
        if (i > 0) expect(e.id).toBeGreaterThan(es[i - 1]!.id)
      }
      expect(entries("talker", "-n", "2").map((e) => e.message)).toEqual([
        "\u001b[31mred alert\u001b[0m",
        "line 5",
      ])
    },
    T,
  )

  it(
    "several IDs (or none: every daemon) interleave, each line naming its daemon",
    async () => {
      const both = lines("talker", "other", "--no-timestamp", "--raw")
      expect(both).toHaveLength(6)
      expect(both).toContain("logs/other other says hi")
      expect(both).toContain("logs/talker Hello World")
      const all = lines("--no-timestamp")
      expect(all).toContain("logs/other other says hi")
      expect(all).toContain("logs/talker line 5")
      expect(lines("talker", "other", "--no-timestamp", "-n", "1")).toHaveLength(1)
    },
    T,
  )

  it(
    "multi-byte characters come out whole in --json and in filtered output, however the answer is cut",
    async () => {
      expect(cli("start", "wide").status).toBe(0)
      await logged("logs/wide", "é 10")
      const want = Array.from({ length: 10 }, (_, i) => `${"é".repeat(30_000)} ${i + 1}`)
      expect(entries("wide", "-n", "10").map((e) => e.message)).toEqual(want)
      expect(lines("wide", "--no-timestamp", "--grep", "é")).toEqual(want)
      expect(cli("stop", "wide").status).toBe(0)
    },
    T,
  )

  it(
    "an unknown daemon is an error",
    () => {
      const r = cli("logs", "nosuch")
      expect(r.status).toBe(1)
      expect(r.stderr).toContain("daemon nosuch not found")
    },
    T,
  )

  it(
    "a burst of 5000 lines is stored completely and in order",
    async () => {
      expect(cli("start", "flood").status).toBe(0)
      await logged("logs/flood", "flood 5000")
      const es = entries("flood", "-n", "10000")
      expect(es).toHaveLength(5000)
      expect(es[0]!.message).toBe("flood 1")
      expect(es.every((e, i) => e.message === `flood ${i + 1}`)).toBe(true)
    },
    T,
  )
})

describe("--since and --until", () => {
  const local = (ms: number) => {
    const d = new Date(ms)
    const p = (n: number) => String(n).padStart(2, "0")
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
  }

  it(
    "select by relative (5min, 3s) and absolute times",
    async () => {
      expect(cli("start", "timed").status).toBe(0)
      await logged("logs/timed", "early line")
      const afterEarly = Date.now()
      // A real gap between the two lines: the point of the test, not a race.
      await waitFor("4.5 s to pass", () => Date.now() - afterEarly >= 4_500, { interval: 100 })
      const middle = afterEarly + 1_500
      trigger("timed.go")
      await logged("logs/timed", "late line")
      const msgs = (...args: Array<string>) => entries("timed", ...args).map((e) => e.message)
      // whole seconds that reach back past the late line but not to the early one, however long
      // the CLI takes to start (up to the lines' gap less a second)
      const back = Math.floor((Date.now() - afterEarly) / 1000)
      expect(msgs("--since", `${back}s`)).toEqual(["late line"])
      expect(msgs("--since", "5min")).toEqual(["early line", "late line"])
      expect(msgs("--since", new Date(middle).toISOString())).toEqual(["late line"])
      expect(msgs("--until", new Date(middle).toISOString())).toEqual(["early line"])
      // the log's own format, local time, whole seconds
      expect(msgs("--until", local(middle))).toEqual(["early line"])
      expect(msgs("--since", local(middle))).toEqual(["late line"])
      expect(msgs("--since", "5min", "--until", local(middle))).toEqual(["early line"])
      expect(msgs("--until", "5min")).toEqual([])
      const bad = cli("logs", "timed", "--since", "the day before")
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain("invalid time")
      const crossed = cli("logs", "timed", "--since", "5min", "--until", "10min")
      expect(crossed.status).toBe(2)
      expect(crossed.stderr).toContain("--since is after --until")
      const negative = cli("logs", "timed", "-n", "-5")
      expect(negative.status).toBe(2)
      expect(negative.stderr).toContain("-n must be 0 or more (got -5)")
      // a bare number is no time (Date.parse would take "5" for a year)
      for (const flag of ["--since", "--until"]) {
        const bare = cli("logs", "timed", flag, "5")
        expect(bare.status, flag).toBe(2)
        expect(bare.stderr, flag).toContain('invalid time "5": a number needs a unit, e.g. "5min" or "5s"')
      }
    },
    T,
  )
})

describe("--tail / -f", () => {
  it(
    "prints the recent lines, then new lines as they arrive, until killed",
    async () => {
      expect(cli("start", "follower").status).toBe(0)
      await logged("logs/follower", "before 3")
      const tail = spawnCli(["logs", "follower", "-f", "--no-timestamp", "-n", "2"], {
        cwd: proj,
        env: sb.env,
      })
      try {
        await waitFor("the recent lines", () => tail.stdout().includes("before 3"))
        expect(tail.stdout().split("\n").filter(Boolean)).toEqual(["before 2", "before 3"])
        trigger("follower.go")
        await waitFor("the new line", () => tail.stdout().includes("after go"))
        expect(tail.stdout().split("\n").filter(Boolean)).toEqual(["before 2", "before 3", "after go"])
      } finally {
        tail.child.kill("SIGTERM")
      }
      const end = await tail.exited
      expect(end.code === 0 || end.signal === "SIGTERM").toBe(true)
    },
    T,
  )

  it(
    "--tail --json prints one entry object per line",
    async () => {
      await logged("logs/follower", "after go")
      const tail = spawnCli(["logs", "follower", "--tail", "--json", "-n", "1"], { cwd: proj, env: sb.env })
      try {
        const first = await waitFor("an entry", () =>
          tail
            .stdout()
            .split("\n")
            .find((l) => l.startsWith("{")),
        )
        const e = JSON.parse(first) as LogEntry
        expect(e).toMatchObject({ daemon_id: "logs/follower", message: "after go" })
        expect(e.timestamp).toMatch(TIMESTAMP)
      } finally {
        tail.child.kill("SIGTERM")
      }
      await tail.exited
    },
    T,
  )
})

describe("a reader that goes away", () => {
  it(
    "ends `logs -f` (plain and --json) quietly with exit 0, as a pipe into `head` does",
    async () => {
      expect(cli("start", "ticker").status).toBe(0)
      for (const args of [
        ["logs", "ticker", "-f", "-n", "1"],
        ["logs", "ticker", "--tail", "--json", "-n", "1"],
      ]) {
        const tail = spawnCli(args, { cwd: proj, env: sb.env })
        await waitFor(`${args.join(" ")}: a line`, () => tail.stdout().includes("tick"))
        tail.child.stdout?.destroy() // the reader leaves; the next tick's write fails with EPIPE
        const end = await tail.exited
        expect(tail.stderr(), args.join(" ")).toBe("")
        expect(end, args.join(" ")).toEqual({ code: 0, signal: null })
      }
      expect(cli("stop", "ticker").status).toBe(0)
    },
    T,
  )
})

describe("--clear", () => {
  it(
    "with a filter is a usage error that deletes nothing: --clear deletes whole logs",
    async () => {
      for (const filter of [["--grep", "hello"], ["--since", "1h"], ["-n", "5"], ["--tail"]]) {
        const r = cli("logs", "talker", "--clear", ...filter)
        expect(r.status, filter.join(" ")).toBe(2)
        expect(r.stderr, filter.join(" ")).toContain(
          `--clear deletes the whole log of each daemon named: it cannot be combined with ${filter[0]}`,
        )
      }
      expect(lines("talker", "--no-timestamp")).toContain("Hello World")
    },
    T,
  )

  it(
    "clears one daemon's logs; a following tail is told; later lines continue with higher ids",
    async () => {
      expect(cli("start", "clearme").status).toBe(0)
      await logged("logs/clearme", "first run line")
      const before = entries("clearme")
      const tail = spawnCli(["logs", "clearme", "-f", "--no-timestamp"], { cwd: proj, env: sb.env })
      try {
        await waitFor("the tail's history", () => tail.stdout().includes("first run line"))
        const r = cli("logs", "clearme", "--clear")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain("cleared the logs of 1 daemon")
        expect(entries("clearme")).toEqual([])
        await waitFor("the tail to show the clear", () => tail.stdout().includes("-- logs cleared --"))
        trigger("clearme.go")
        await logged("logs/clearme", "after clear")
        const after = entries("clearme")
        expect(after.map((e) => e.message)).toEqual(["after clear"])
        expect(after[0]!.id).toBeGreaterThan(before[before.length - 1]!.id)
        await waitFor("the tail to show the new line", () => tail.stdout().includes("after clear"))
      } finally {
        tail.child.kill("SIGTERM")
      }
      await tail.exited
      // other daemons' logs are untouched
      expect(entries("talker").length).toBe(5)
    },
    T,
  )

  it(
    "logs --clear without IDs clears every daemon; --json says which",
    async () => {
      const r = cli("logs", "--clear")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/cleared the logs of \d+ daemons/)
      const j = cli("logs", "talker", "other", "--clear", "--json")
      expect(j.status, j.stderr).toBe(0)
      expect(JSON.parse(j.stdout)).toEqual({ cleared: ["logs/talker", "logs/other"] })
      expect(entries("talker")).toEqual([])
      expect(entries("other")).toEqual([])
      expect(lines()).toEqual([])
    },
    T,
  )
})
