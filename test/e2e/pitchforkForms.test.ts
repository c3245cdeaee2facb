/**
 * pitchfork's other spellings through the built CLI: a flat `[settings] interval`, `expect` and
 * `bump` on a daemon, a `[daemons.<name>.ready]` table, `time_retention` / `line_retention` /
 * `archive_hook` on a daemon (each read as ours, with a warning naming file, line, key and our
 * form; both spellings at once refused), pitchfork's short setting variables under our prefix,
 * and `daemons add ID -- CMD ARGS...` (or the words right after the ID) and `--autostart` /
 * `--autostop`.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, STACK_LINE, storedLogs, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
beforeAll(() => {
  sb = makeDaemonSandbox()
}, T)
afterAll(() => sb.destroy(), T)

interface Shown {
  readonly daemons: Record<string, { readonly config: Record<string, unknown> }>
  readonly settings: Record<string, Record<string, unknown>>
  readonly warnings: ReadonlyArray<string>
}
const show = (dir: string, env: Record<string, string> = {}) => {
  const r = sb.cli(["config", "show", "--json"], dir, { ...sb.env, ...env })
  expect(r.status, r.stderr).toBe(0)
  const shown = JSON.parse(r.stdout) as Shown
  // --json carries the warnings in its output
  return { shown, stderr: shown.warnings.join("\n") }
}

describe("pitchfork's spellings of configuration keys (e2e)", () => {
  it(
    "reads each daemon form as ours, with a warning that names the file, line, key and our form",
    () => {
      const dir = sb.project(
        "forms",
        `[daemons.web]
run = "exec sleep 300"
expect = [3456, 3457]
bump = 10
time_retention = "7d"
line_retention = 50
archive_hook = "cat > /dev/null"

[daemons.web.ready]
port = 3456

[daemons.probe]
run = "exec sleep 301"
bump = true

[daemons.probe.ready]
delay = 2
output = "listening"
http = "http://127.0.0.1:3456/health"
cmd = "true"
`,
      )
      const file = join(dir, "supervisor.toml")
      const { shown, stderr } = show(dir)
      const web = shown.daemons["forms/web"]!.config
      expect(web.port).toEqual({ expect: [3456, 3457], bump: 10 })
      expect(web.ready_port).toEqual({ port: 3456 })
      expect(web.logs).toEqual({ time_retention: "7d", line_retention: 50, archive_hook: "cat > /dev/null" })
      const probe = shown.daemons["forms/probe"]!.config
      expect(probe).toMatchObject({
        ready_delay: 2,
        ready_output: { pattern: "listening" },
        ready_http: { url: "http://127.0.0.1:3456/health" },
        ready_cmd: { run: "true" },
      })
      expect(probe.port).toBeUndefined()
      for (const warning of [
        `${file}:3: daemons.web.expect: \`expect\` and \`bump\` on a daemon are deprecated; write port = { expect = [3456, 3457], bump = 10 }`,
        `${file}:5: daemons.web.time_retention: \`time_retention\` on a daemon is deprecated; write it in [daemons.web.logs]: time_retention = "7d"`,
        `${file}:6: daemons.web.line_retention: \`line_retention\` on a daemon is deprecated; write it in [daemons.web.logs]: line_retention = 50`,
        `${file}:7: daemons.web.archive_hook: \`archive_hook\` on a daemon is deprecated; write it in [daemons.web.logs]: archive_hook = "cat > /dev/null"`,
        `${file}:10: daemons.web.ready.port: the [daemons.web.ready] table is deprecated; write ready_port = 3456 in [daemons.web]`,
        `${file}:14: daemons.probe.bump: \`bump\` on a daemon is deprecated and has no effect without \`expect\`; write port = { expect = ["..."], bump = true }`,
        `${file}:17: daemons.probe.ready.delay: the [daemons.probe.ready] table is deprecated; write ready_delay = 2 in [daemons.probe]`,
        `${file}:18: daemons.probe.ready.output: the [daemons.probe.ready] table is deprecated; write ready_output = "listening" in [daemons.probe]`,
        `${file}:19: daemons.probe.ready.http: the [daemons.probe.ready] table is deprecated; write ready_http = "http://127.0.0.1:3456/health" in [daemons.probe]`,
        `${file}:20: daemons.probe.ready.cmd: the [daemons.probe.ready] table is deprecated; write ready_cmd = "true" in [daemons.probe]`,
      ])
        expect(stderr).toContain(warning)
    },
    T,
  )

  it(
    "reads a flat [settings] key as the one setting it names, with a warning; a shared name stays unknown",
    () => {
      const dir = sb.project("flat", `[daemons.a]\nrun = "exec sleep 302"\n`)
      const user = join(sb.home, ".config/supervisor/config.toml")
      sb.write({
        "home/.config/supervisor/config.toml": `[settings]
interval = "1s"
autostop_delay = "5m"
time_retention = "2d"
stop_timeout = "7s"
`,
      })
      try {
        const { shown, stderr } = show(dir)
        expect(shown.settings.general).toMatchObject({ interval: "1s", autostop_delay: "5m" })
        expect(shown.settings.logs).toMatchObject({ time_retention: "2d" })
        expect(shown.settings.supervisor).toMatchObject({ stop_timeout: "7s" })
        expect(stderr).toContain(
          `${user}:2: settings.interval: pitchfork's flat [settings] form is deprecated; write it in its table: [settings.general] interval = "1s"`,
        )
        expect(stderr).toContain(`${user}:5: settings.stop_timeout: `)
        expect(stderr).toContain(`[settings.supervisor] stop_timeout = "7s"`)
        expect(stderr).toContain(`${user}:4: settings.time_retention: `)
        // `settings get` tells where it comes from: the user's file
        const got = sb.cli(["settings", "get", "general.interval", "--json"], dir)
        expect(got.status, got.stderr).toBe(0)
        expect(JSON.parse(got.stdout)).toMatchObject({ value: "1s", source: "user", file: user })

        // a bad value is reported at the key as written
        sb.write({ "home/.config/supervisor/config.toml": `[settings]\ninterval = 5\n` })
        const bad = sb.cli(["config", "show"], dir)
        expect(bad.status).toBe(1)
        expect(bad.stderr).toMatch(new RegExp(`${user}:2: settings\\.interval: `))
        // `auto_start` is a key of four tables: which one is meant cannot be told
        sb.write({ "home/.config/supervisor/config.toml": `[settings]\nauto_start = false\n` })
        const shared = sb.cli(["config", "show"], dir)
        expect(shared.status).toBe(1)
        expect(shared.stderr).toMatch(new RegExp(`${user}:2: settings\\.auto_start: `))
        expect(shared.stderr).not.toMatch(STACK_LINE)
      } finally {
        sb.write({ "home/.config/supervisor/config.toml": "" })
      }
    },
    T,
  )

  it(
    "refuses both spellings of one key in one table, naming the line and the key to remove",
    () => {
      const cases: Array<[string, RegExp]> = [
        [
          `[daemons.a]\nrun = "x"\nport = 3000\nexpect = [3001]\n`,
          /supervisor\.toml:4: daemons\.a\.expect: both `port` and pitchfork's `expect`\/`bump` keys are set/,
        ],
        [
          `[daemons.a]\nrun = "x"\nready_port = 3000\n[daemons.a.ready]\nport = 3001\n`,
          /supervisor\.toml:5: daemons\.a\.ready\.port: both `ready\.port` and `ready_port` are set/,
        ],
        [
          `[daemons.a]\nrun = "x"\ntime_retention = "1d"\n[daemons.a.logs]\ntime_retention = "2d"\n`,
          /supervisor\.toml:3: daemons\.a\.time_retention: both `time_retention` and `logs\.time_retention` are set/,
        ],
        [
          `[settings]\ninterval = "1s"\n[settings.general]\ninterval = "2s"\n`,
          /supervisor\.toml:2: settings\.interval: both settings\.interval and settings\.general\.interval are set/,
        ],
      ]
      for (const [i, [toml, message]] of cases.entries()) {
        const dir = sb.project(`both${i}`, toml)
        const r = sb.cli(["config", "show"], dir)
        expect(r.status, toml).toBe(1)
        expect(r.stderr, toml).toMatch(message)
        expect(r.stderr).not.toMatch(STACK_LINE)
      }
    },
    T,
  )

  it(
    "runs a daemon's own archive_hook (pitchfork's spelling on the daemon) before its lines are pruned",
    async () => {
      const archive = join(sb.root, "own-archive.jsonl")
      const dir = sb.project(
        "own",
        `[daemons.counted]
run = "for i in $(seq 1 12); do echo line $i; done; exec sleep 300"
ready_delay = 0.2
line_retention = 4
archive_hook = "cat >> ${archive}"
`,
      )
      expect(sb.cli(["start", "counted"], dir).status).toBe(0)
      await waitFor("12 lines", async () => (await storedLogs(sb.stateDir, "own/counted")).length >= 12)
      // a pruning pass runs when the supervisor starts
      const r = sb.cli(["supervisor", "start", "--force"], dir)
      expect(r.status, r.stderr).toBe(0)
      await waitFor("the pruning", async () => (await storedLogs(sb.stateDir, "own/counted")).length === 4)
      expect(existsSync(archive)).toBe(true)
      const archived = readFileSync(archive, "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { message: string }).message)
      expect(archived).toEqual(Array.from({ length: 8 }, (_, i) => `line ${i + 1}`))
    },
    T,
  )
})

describe("pitchfork's setting variables under our prefix (e2e)", () => {
  it(
    "SUPERVISOR_INTERVAL, SUPERVISOR_AUTOSTOP_DELAY, ... override their settings; the long name wins",
    () => {
      const dir = sb.dir("envs")
      const get = (key: string, env: Record<string, string>) => {
        const r = sb.cli(["settings", "get", key, "--json"], dir, { ...sb.env, ...env })
        expect(r.status, r.stderr).toBe(0)
        return JSON.parse(r.stdout) as { value: unknown; source: string }
      }
      const cases: Array<[string, string, string]> = [
        ["general.interval", "SUPERVISOR_INTERVAL", "3s"],
        ["general.autostop_delay", "SUPERVISOR_AUTOSTOP_DELAY", "10m"],
        ["supervisor.stop_timeout", "SUPERVISOR_STOP_TIMEOUT", "9s"],
        ["supervisor.ready_check_interval", "SUPERVISOR_READY_CHECK_INTERVAL", "250ms"],
        ["logs.time_retention", "SUPERVISOR_LOG_TIME_RETENTION", "3d"],
        ["logs.line_retention", "SUPERVISOR_LOG_LINE_RETENTION", "100"],
      ]
      for (const [key, name, value] of cases)
        expect(get(key, { [name]: value }), name).toEqual(
          expect.objectContaining({
            value: key.endsWith("line_retention") ? 100 : value,
            source: "environment",
          }),
        )
      expect(
        get("general.interval", { SUPERVISOR_INTERVAL: "3s", SUPERVISOR_GENERAL_INTERVAL: "4s" }).value,
      ).toBe("4s")
      // a bad value names the variable that carried it
      const bad = sb.cli(["settings", "get", "general.interval"], dir, {
        ...sb.env,
        SUPERVISOR_INTERVAL: "soon",
      })
      expect(bad.status).toBe(1)
      expect(bad.stderr).toContain("environment variable SUPERVISOR_INTERVAL")
    },
    T,
  )
})

describe("daemons add with pitchfork's command forms (e2e)", () => {
  it(
    "takes the command after -- or as the words after the ID, and --autostart/--autostop",
    () => {
      const dir = sb.dir("adds")
      const file = join(dir, "supervisor.toml")
      const add = (...args: Array<string>) => sb.cli(["daemons", "add", ...args], dir)
      const ok = (...args: Array<string>) => {
        const r = add(...args)
        expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0)
      }
      ok("api", "--ready-delay", "1", "--", "bun", "run", "--hot", "server.ts", "--port", "3000")
      ok("docs", "--autostart", "python3", "-m", "http.server", "it's 8000")
      ok("worker", "--autostart", "--autostop", "--run", "exec sleep 300")
      expect(readFileSync(file, "utf8")).toBe(
        `[daemons.api]
run = "bun run --hot server.ts --port 3000"
ready_delay = 1

[daemons.docs]
run = "python3 -m http.server 'it'\\\\''s 8000'"
auto = ["start"]

[daemons.worker]
run = "exec sleep 300"
auto = ["start", "stop"]
`,
      )
      const before = readFileSync(file, "utf8")
      const both = add("x", "--run", "a", "--", "b")
      expect(both.status).toBe(2)
      expect(both.stderr).toContain("give the command once, with --run or after --, not both")
      const none = add("x")
      expect(none.status).toBe(2)
      expect(none.stderr).toContain("give the command the daemon runs: --run CMD, or after --")
      expect(readFileSync(file, "utf8")).toBe(before)
    },
    T,
  )
})
