/**
 * The CLI's reads as commands of the protocol (docs/api.md, "Commands"): `logs` (a Logs command),
 * `logs -f` (a Tail), `settings` (a Settings command), each counted in /metrics with `cli` as its
 * source, and answering as before: the project's daemons by their short IDs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parsePrometheus, sampleValue } from "../metrics/prometheus.js"
import { socketText } from "./commandCounts.js"
import { type DaemonSandbox, makeDaemonSandbox, spawnCli, storedLogs, waitFor } from "./harness.js"

const T = 90_000
const APP = `[daemons.web]\nrun = "echo web-ready; exec sleep 300"\nready_delay = 0\n\n[settings.logs]\nlog_format = "json"\n`
const OTHER = `[daemons.web]\nrun = "echo other-web; exec sleep 300"\nready_delay = 0\n`

describe("the CLI's reads as commands (e2e)", () => {
  let sb: DaemonSandbox
  let app: string
  beforeAll(async () => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    const other = sb.project("other", OTHER)
    for (const dir of [app, other]) {
      const r = sb.cli(["start", "web"], dir)
      expect(r.status, r.stderr).toBe(0)
    }
    await waitFor(
      "both lines stored",
      async () =>
        (await storedLogs(sb.stateDir, "app/web")).length > 0 &&
        (await storedLogs(sb.stateDir, "other/web")).length > 0,
    )
  }, T)
  afterAll(() => sb?.destroy())

  const handled = async (command: string) =>
    sampleValue(parsePrometheus(await socketText(sb.stateDir, "/metrics")), "supervisor_commands_total", {
      command,
      source: "cli",
    }) ?? 0

  it(
    "logs sends a Logs command: the short ID is this project's daemon",
    async () => {
      const before = await handled("Logs")
      const r = sb.cli(["logs", "web", "--json"], app)
      expect(r.status, r.stderr).toBe(0)
      const entries = JSON.parse(r.stdout) as Array<{ daemon_id: string; message: string }>
      expect(entries.map((e) => [e.daemon_id, e.message])).toEqual([["app/web", "web-ready"]])
      expect(await handled("Logs")).toBe(before + 1)
      // an unknown daemon: the command's failure, in one line
      const unknown = sb.cli(["logs", "nope", "--json"], app)
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toMatch(/^error: .*nope/m)
    },
    T,
  )

  it(
    "logs -f sends a Tail command and follows the daemon",
    async () => {
      const before = await handled("Tail")
      const follow = spawnCli(["logs", "web", "-f", "--no-timestamp"], { cwd: app, env: sb.env })
      try {
        await waitFor("the stored line in the follow", () => follow.stdout().includes("web-ready"), {
          timeout: 20_000,
        })
        expect(await handled("Tail")).toBe(before + 1)
        expect(follow.stdout()).not.toContain("other-web")
      } finally {
        follow.child.kill("SIGTERM")
        await follow.exited
      }
    },
    T,
  )

  it(
    "settings sends a Settings command, answered from this directory's files",
    async () => {
      const before = await handled("Settings")
      const r = sb.cli(["settings", "get", "logs.log_format", "--json"], app)
      expect(r.status, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ value: "json", source: "project" })
      expect(await handled("Settings")).toBe(before + 1)
    },
    T,
  )
})
