/**
 * Structured logs through the built CLI: log_format json, logfmt and auto daemons; `logs --json`
 * carries level and fields (a text daemon's entries do not); `--level`, `--field`, `--jq`, also
 * with `--tail`; mistakes in them are usage errors.
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

interface StructuredEntry extends LogEntry {
  readonly level?: string
  readonly fields?: Record<string, unknown>
}

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)
const lines = (...args: Array<string>): Array<string> => {
  const r = cli("logs", "--no-timestamp", ...args)
  expect(r.status, r.stderr).toBe(0)
  return r.stdout.split("\n").filter((l) => l !== "")
}
const entries = (...args: Array<string>): Array<StructuredEntry> => {
  const r = cli("logs", "--json", ...args)
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Array<StructuredEntry>
}

const API_LINES = [
  '{"level":"info","msg":"listening","port":3000}',
  '{"level":"warn","msg":"slow request","req":{"path":"/a","ms":900}}',
  "a stack trace, not JSON",
  '{"level":"error","msg":"request failed","status":503,"req":{"path":"/b"}}',
]

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "shop",
    `
[daemons.api]
run = "exec sh api.sh"
ready_delay = 0.2
[daemons.api.logs]
log_format = "json"

[daemons.worker]
run = "exec sh worker.sh"
ready_delay = 0.2
logs = { log_format = "logfmt" }

[daemons.mixed]
run = "exec sh mixed.sh"
ready_delay = 0.2
logs = { log_format = "auto" }

[daemons.plain]
run = "echo 'level=error but text'; exec sleep 300"
ready_delay = 0.2
`,
  )
  sb.write({
    "shop/api.sh": `${API_LINES.map((l) => `printf '%s\\n' '${l}'`).join("\n")}
while [ ! -f go ]; do sleep 0.05; done
printf '%s\\n' '{"level":"error","msg":"after go","status":500}' '{"level":"info","msg":"fine after go"}'
exec sleep 300
`,
    "shop/worker.sh": `echo 'time=1 level=debug msg="job picked" job=42'
echo 'time=2 level=error msg="job failed" job=42 err="disk full"'
exec sleep 300
`,
    "shop/mixed.sh": `echo '{"level":"info","msg":"json here"}'
echo 'lvl=warn msg=logfmt'
echo 'a sentence with x=1 in it'
exec sleep 300
`,
  })
  expect(cli("start", "api", "worker", "mixed", "plain").status).toBe(0)
  for (const [id, n] of [
    ["shop/api", 4],
    ["shop/worker", 2],
    ["shop/mixed", 3],
    ["shop/plain", 1],
  ] as const)
    await waitFor(`${n} lines of ${id}`, async () => (await storedLogs(sb.stateDir, id)).length >= n)
}, T)
afterAll(() => sb.destroy(), T)

describe("structured logs", () => {
  it(
    "--json carries level and fields of the parsed lines; the message stays the line; text daemons have neither",
    () => {
      const api = entries("api")
      expect(api.map((e) => e.message)).toEqual(API_LINES)
      expect(api.map((e) => e.level)).toEqual(["info", "warn", undefined, "error"])
      expect(api[1]!.fields).toEqual({ level: "warn", msg: "slow request", req: { path: "/a", ms: 900 } })
      expect(Object.keys(api[2]!).sort()).toEqual(["daemon_id", "id", "message", "timestamp"])
      const worker = entries("worker")
      expect(worker[1]).toMatchObject({
        level: "error",
        fields: { time: "2", level: "error", msg: "job failed", job: "42", err: "disk full" },
      })
      expect(entries("mixed").map((e) => [e.level, e.fields])).toEqual([
        ["info", { level: "info", msg: "json here" }],
        ["warn", { lvl: "warn", msg: "logfmt" }],
        [undefined, undefined],
      ])
      const plain = entries("plain")
      expect(Object.keys(plain[0]!).sort()).toEqual(["daemon_id", "id", "message", "timestamp"])
    },
    T,
  )

  it(
    "--level keeps that level and the more severe ones, across daemons; lines without a level are left out",
    () => {
      expect(lines("api", "--level", "warn")).toEqual([API_LINES[1], API_LINES[3]])
      expect(lines("api", "--level", "error", "--json").length).toBeGreaterThan(0)
      const all = lines("--level", "error")
      expect(all).toContain(`shop/api ${API_LINES[3]}`)
      expect(all).toContain('shop/worker time=2 level=error msg="job failed" job=42 err="disk full"')
      expect(all.some((l) => l.includes("shop/plain"))).toBe(false)
      const bad = cli("logs", "api", "--level", "loud")
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain("trace, debug, info, warn, error, fatal")
    },
    T,
  )

  it(
    "--field KEY=VALUE (repeatable: all must hold; dotted paths; numbers as written) and --jq",
    () => {
      expect(lines("api", "--field", "status=503")).toEqual([API_LINES[3]])
      expect(lines("api", "--field", "req.path=/a")).toEqual([API_LINES[1]])
      expect(lines("worker", "--field", "job=42", "--field", "level=error")).toHaveLength(1)
      expect(lines("worker", "--field", "job=42", "--field", "level=info")).toEqual([])
      expect(lines("api", "--jq", '.fields.req.ms > 500 or .msg == "request failed"')).toEqual([
        API_LINES[1],
        API_LINES[3],
      ])
      expect(lines("api", "--jq", 'select(.level == "error") | .fields.req.path | startswith("/b")')).toEqual(
        [API_LINES[3]],
      )
      expect(entries("api", "--jq", ".fields == null").map((e) => e.message)).toEqual([API_LINES[2]])
      // with the other filters, and -n
      expect(lines("api", "--grep", "request", "--level", "error", "-n", "5")).toEqual([API_LINES[3]])
    },
    T,
  )

  it(
    "mistakes are usage errors that name the flag: --field without =, --jq it cannot run",
    () => {
      const field = cli("logs", "api", "--field", "status")
      expect(field.status).toBe(2)
      expect(field.stderr).toContain('--field "status": expected KEY=VALUE')
      const jq = cli("logs", "api", "--jq", ".a as $x | $x")
      expect(jq.status).toBe(2)
      expect(jq.stderr).toContain("invalid --jq: `as` is not supported")
      const fn = cli("logs", "api", "--jq", "env.HOME")
      expect(fn.status).toBe(2)
      expect(fn.stderr).toContain("env/0 is not a function of --jq")
      const clear = cli("logs", "api", "--clear", "--level", "error")
      expect(clear.status).toBe(2)
      expect(clear.stderr).toContain("--level")
    },
    T,
  )

  it(
    "--tail with --level follows only the matching new lines, each with its level in --json",
    async () => {
      const tail = spawnCli(["logs", "api", "--tail", "--json", "--level", "error", "-n", "1"], {
        cwd: proj,
        env: sb.env,
      })
      try {
        await waitFor("the stored error line", () => tail.stdout().includes("request failed"))
        writeFileSync(join(proj, "go"), "")
        await waitFor("the new error line", () => tail.stdout().includes("after go"))
        // the info line written after it has arrived in the store, and was left out
        await waitFor("the info line stored", async () =>
          (await storedLogs(sb.stateDir, "shop/api")).some((e) => e.message.includes("fine after go")),
        )
        const got = tail
          .stdout()
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as StructuredEntry)
        expect(got.map((e) => [e.level, e.fields?.msg])).toEqual([
          ["error", "request failed"],
          ["error", "after go"],
        ])
      } finally {
        tail.child.kill("SIGTERM")
        await tail.exited
      }
    },
    T,
  )
})
