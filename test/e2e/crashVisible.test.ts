/**
 * Crashes and restarts are visible through the built CLI: the supervisor's own lines in a
 * daemon's log (`[supervisor] exited with code 1`, `restarting: retry 1 of 2`, `killed by
 * SIGKILL`), the RESTARTS, CPU and MEM columns of `list`, and a pending retry in `list` and
 * `status` (`errored, retry 4/4 in 8s`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, tableRow, waitFor } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let dir: string
const cli = (...args: Array<string>) => sb.cli(args, dir)

beforeAll(() => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `
[daemons.crashy]
run = 'echo "run $SUPERVISOR_RETRY_COUNT"; sleep 0.3; exit 1'
ready_delay = 0.1
retry = 2

[daemons.sleeper]
run = "exec sleep 300"
ready_delay = 0.1

[daemons.structured]
run = '''echo '{"level":"error","msg":"boom"}'; exit 1'''
ready_delay = 5
logs = { log_format = "json" }

[daemons.pending]
run = "exit 1"
ready_delay = 5
retry = 4
`,
  )
})
afterAll(() => sb.destroy())

describe("the supervisor's lines in a daemon's log (e2e)", () => {
  it(
    "a crashing daemon with retry = 2: `logs` shows each exit and each restart with its retry; RESTARTS counts them",
    async () => {
      expect(cli("start", "crashy").status).toBe(0)
      await waitFor(
        "crashy to use its retries and give up",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/crashy")
          return e?.status.type === "errored" && e.retry_count === 2 && e.pid === null
        },
        { timeout: 20_000 },
      )
      const logs = await waitFor("the last supervisor line", () => {
        const r = cli("logs", "crashy", "-n", "100", "--no-timestamp")
        return r.stdout.includes("no retry left") ? r.stdout : undefined
      })
      expect(logs.split("\n").filter((l) => l !== "")).toEqual([
        "run 0",
        "[supervisor] exited with code 1",
        "[supervisor] restarting: retry 1 of 2",
        "run 1",
        "[supervisor] exited with code 1",
        "[supervisor] restarting: retry 2 of 2",
        "run 2",
        "[supervisor] exited with code 1",
        "[supervisor] not restarting: no retry left (after 2 retries)",
      ])
      // --json: the same lines, the supervisor's marked by their prefix
      const json = JSON.parse(cli("logs", "crashy", "--json", "-n", "100").stdout) as Array<{
        message: string
      }>
      expect(json.map((e) => e.message)).toContain("[supervisor] restarting: retry 1 of 2")
      // --grep works on them like on any line
      expect(
        cli("logs", "crashy", "--grep", "restarting: retry", "--no-timestamp").stdout.trim().split("\n"),
      ).toEqual(["[supervisor] restarting: retry 1 of 2", "[supervisor] restarting: retry 2 of 2"])
      const list = cli("list")
      expect(list.stdout.split("\n")[0]).toMatch(
        /^ID\s+STATUS\s+PID\s+UPTIME\s+RESTARTS\s+CPU\s+MEM\s+PORTS\s+RUN$/,
      )
      expect(tableRow(list.stdout, "app/crashy")?.slice(1, 7)).toEqual([
        "errored (exit code 1)",
        "-",
        "-",
        "2",
        "-",
        "-",
      ])
    },
    T,
  )

  it(
    "a daemon killed with SIGKILL: `logs` says `killed by SIGKILL`",
    async () => {
      expect(cli("start", "sleeper").status).toBe(0)
      const entry = await daemonEntry(sb.stateDir, "app/sleeper")
      process.kill(entry!.pid!, "SIGKILL")
      await waitFor(
        "the kill to be seen",
        async () => (await daemonEntry(sb.stateDir, "app/sleeper"))?.status.type === "errored",
      )
      const logs = await waitFor("the supervisor's line", () => {
        const r = cli("logs", "sleeper", "--no-timestamp")
        return r.stdout.includes("[supervisor]") ? r.stdout : undefined
      })
      expect(logs.trim()).toBe("[supervisor] killed by SIGKILL")
      expect(tableRow(cli("list").stdout, "app/sleeper")?.[1]).toBe("errored (killed by SIGKILL)")
    },
    T,
  )

  it(
    "log_format json: the daemon's lines keep their level, the supervisor's have none; --level filters as before",
    async () => {
      expect(cli("start", "structured").status).toBe(1)
      const all = await waitFor("both lines", () => {
        const r = JSON.parse(cli("logs", "structured", "--json").stdout || "[]") as Array<
          Record<string, unknown>
        >
        return r.length === 2 ? r : undefined
      })
      expect(all[0]).toMatchObject({ message: '{"level":"error","msg":"boom"}', level: "error" })
      expect(all[1]).toMatchObject({ message: "[supervisor] exited with code 1" })
      expect(all[1]).not.toHaveProperty("level")
      expect(all[1]).not.toHaveProperty("fields")
      expect(cli("logs", "structured", "--level", "error", "--no-timestamp").stdout.trim()).toBe(
        '{"level":"error","msg":"boom"}',
      )
    },
    T,
  )
})

describe("list: resources and a pending retry (e2e)", () => {
  it(
    "a running daemon shows its restart count, CPU and memory",
    () => {
      expect(cli("start", "sleeper").status).toBe(0)
      const row = tableRow(cli("list").stdout, "app/sleeper")!
      const [, status, pid, uptime, restarts, cpu, mem] = row
      expect(status).toBe("running")
      expect(pid).toMatch(/^\d+$/)
      expect(uptime).toMatch(/^\d+[smhd]/)
      expect(restarts).toBe("0")
      expect(cpu).toMatch(/^\d+\.\d%$/)
      expect(mem).toMatch(/^\d+(\.\d)?[KMG]$/)
      expect(mem).not.toBe("0K")
      // running daemons with short IDs fit in 80 columns (RUN, the last column, is cut to fit)
      const running = cli("list", "--status", "running").stdout.trimEnd().split("\n")
      for (const line of running) expect(line.length, line).toBeLessThanOrEqual(80)
    },
    T,
  )

  it(
    "an errored daemon waiting for its retry: `errored, retry 4/4 in Ns` in list and status, next_retry in --json",
    async () => {
      // fails at once each time: retries after 1 s, 2 s, 4 s, then waits 8 s for the last one
      const starting = sb.cliAsync(["start", "pending"], dir)
      const row = await waitFor(
        "the last retry to be pending",
        () => {
          const status = tableRow(cli("list").stdout, "app/pending")?.[1]
          return status?.startsWith("errored, retry 4/4") ? status : undefined
        },
        { timeout: 30_000, interval: 200 },
      )
      expect(row).toMatch(/^errored, retry 4\/4 in [1-8]s$/)
      const status = cli("status", "pending").stdout
      expect(status).toMatch(/^Status: errored, retry 4\/4 in [1-8]s$/m)
      const listed = JSON.parse(cli("list", "--json").stdout) as Array<{
        id: { qualified: string }
        next_retry: { retry: number; of: number | null; due_in_ms: number } | null
      }>
      const entry = listed.find((e) => e.id.qualified === "app/pending")!
      if (entry.next_retry !== null) {
        expect(entry.next_retry).toMatchObject({ retry: 4, of: 4 })
        expect(entry.next_retry.due_in_ms).toBeLessThanOrEqual(8000)
      }
      expect(listed.find((e) => e.id.qualified === "app/sleeper")?.next_retry).toBeNull()
      expect(cli("stop", "pending").status).toBe(0)
      expect((await starting).status).not.toBe(0)
      expect(tableRow(cli("list").stdout, "app/pending")?.[1]).not.toMatch(/retry/)
    },
    T,
  )
})
