/**
 * time_retention / line_retention and the archive hook through the built CLI and a real
 * supervisor: a pass runs when the supervisor starts (then hourly), so each step restarts it
 * with `supervisor supervisor start --force`, which leaves the daemons running.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonEntry, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)
const archivePath = () => join(sb.root, "archive.jsonl")
const failMarker = () => join(sb.root, "archive-fails")
const supervisorLog = () => readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
const restartSupervisor = () => {
  const r = cli("supervisor", "start", "--force")
  expect(r.status, r.stderr).toBe(0)
}
const ids = async (id: string) =>
  (await storedLogs(sb.stateDir, id)).map((e) => Number(e.message.split(" ")[1]))

beforeAll(async () => {
  sb = makeDaemonSandbox()
  // settings are the supervisor's: from the user config
  sb.write({
    "home/.config/supervisor/config.toml": `[settings.logs.archive_hook]
command = "if [ -e ${failMarker()} ]; then echo 'archive is down'; exit 1; fi; cat >> ${archivePath()}"
batch_size = 4
`,
  })
  proj = sb.project(
    "ret",
    `
[daemons.counted]
run = "for i in $(seq 1 20); do echo line $i; done; exec sleep 300"
ready_delay = 0.2
[daemons.counted.logs]
line_retention = 5
log_format = "logfmt"

[daemons.kept]
run = "for i in $(seq 1 20); do echo line $i; done; exec sleep 300"
ready_delay = 0.2
`,
  )
  writeFileSync(failMarker(), "")
  expect(cli("start", "counted", "kept").status).toBe(0)
  for (const id of ["ret/counted", "ret/kept"])
    await waitFor(`20 lines of ${id}`, async () => (await storedLogs(sb.stateDir, id)).length >= 20)
}, T)
afterAll(() => sb.destroy(), T)

describe("log retention", () => {
  it(
    "a failing archive hook keeps the lines, and the supervisor log says so; once it works, only the newest 5 stay",
    async () => {
      const pid = (await daemonEntry(sb.stateDir, "ret/counted"))?.pid
      restartSupervisor()
      await waitFor("the warning in the supervisor log", () =>
        supervisorLog().includes(
          "log retention of ret/counted: settings.logs.archive_hook failed; 15 line(s) to prune are kept",
        ),
      )
      expect(supervisorLog()).toContain("[archive ret/counted] archive is down")
      expect(await ids("ret/counted")).toHaveLength(20)
      expect(existsSync(archivePath())).toBe(false)

      rmSync(failMarker())
      restartSupervisor()
      await waitFor("the pruning", async () => (await ids("ret/counted")).length === 5)
      expect(await ids("ret/counted")).toEqual([16, 17, 18, 19, 20])
      expect(cli("logs", "counted", "--no-timestamp", "-n", "100").stdout).toBe(
        "line 16\nline 17\nline 18\nline 19\nline 20\n",
      )
      // the archive got the 15 others, once each, as JSON lines of their entries
      const archived = readFileSync(archivePath(), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: number; daemon_id: string; message: string; time: string })
      expect(archived.map((e) => e.message)).toEqual(Array.from({ length: 15 }, (_, i) => `line ${i + 1}`))
      expect(archived.every((e) => e.daemon_id === "ret/counted" && /Z$/.test(e.time))).toBe(true)
      // a daemon without retention keeps everything; the daemons ran on through the restarts
      expect(await ids("ret/kept")).toHaveLength(20)
      expect((await daemonEntry(sb.stateDir, "ret/counted"))?.pid).toBe(pid)
      // new lines still come, with ids after the kept ones (the restart's own line first)
      expect(cli("restart", "counted").status).toBe(0)
      await waitFor("the next run's lines", async () => (await ids("ret/counted")).length === 26)
      const es = await storedLogs(sb.stateDir, "ret/counted")
      expect(es[0]!.id).toBe(16)
      expect(es[5]).toMatchObject({ id: 21, message: "[supervisor] restarting: manual" })
      expect(es.at(-1)!.id).toBe(41)
    },
    T,
  )
})
