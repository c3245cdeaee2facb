import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { exportSystemd } from "../../src/export/systemd.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "./fixture.js"

const hasSystemdAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0

describe("export systemd", () => {
  const sandbox = useSandbox()

  it("writes a service per daemon: After=/Requires= from depends, Restart= from retry, limits, a timer from cron", async () => {
    const { files, warnings } = exportSystemd(await loadShop(sandbox()))
    expect(files.map((f) => f.path)).toEqual([
      "shop--api.service",
      "shop--db.service",
      "shop--migrate.service",
      "shop--report.service",
      "shop--report.timer",
    ])
    const api = fileNamed(files, "shop--api.service")
    expect(api).toContain("After=shop--db.service shop--migrate.service\n")
    expect(api).toContain("Requires=shop--db.service shop--migrate.service\n")
    expect(api).toContain("Restart=on-failure\n")
    expect(api).toContain("StartLimitIntervalSec=0\n")
    // `$` and `%` are literal: doubled; the port template is rendered with db's port
    expect(api).toContain('ExecStart=/bin/sh -c "node server.js --db=$$DB_URL"\n')
    expect(api).toContain('Environment="PCT=100%%"\n')
    expect(api).toContain('Environment="DB=localhost:5432"\n')
    expect(api).toContain("KillSignal=SIGINT\nKillMode=control-group\nTimeoutStopSec=5\n")
    const db = fileNamed(files, "shop--db.service")
    expect(db).toContain("MemoryMax=536870912\n")
    expect(db).toContain("CPUQuota=50%\n")
    expect(db).toContain("StartLimitBurst=4\n")
    // a dependency awaited to complete runs once: dependents start after it exited 0
    expect(fileNamed(files, "shop--migrate.service")).toContain("Type=oneshot\nRemainAfterExit=yes\n")
    expect(fileNamed(files, "shop--migrate.service")).toContain("Restart=no\n")
    const timer = fileNamed(files, "shop--report.timer")
    expect(timer).toContain("OnCalendar=Mon..Fri *-*-* 02:30:00\n")
    expect(timer).toContain("Unit=shop--report.service\n")
    expect(fileNamed(files, "shop--report.service")).not.toContain("[Install]")
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/api: watch (restart on file change) has no systemd equivalent",
        "shop/api: ready_http has no systemd form (it would need curl in ExecStartPost=): the unit is ready when started",
        "shop/db: ready_port has no systemd form: the unit is ready when started",
      ]),
    )
  })

  it("turns ready_cmd into an ExecStartPost= loop that holds dependents until it passes", async () => {
    const config = await loadShop(
      sandbox(),
      '[daemons.web]\nrun = "serve"\nready_cmd = { run = "test -e \'/tmp/up\'", timeout = "20s" }\n',
    )
    const web = fileNamed(exportSystemd(config).files, "shop--web.service")
    expect(web).toContain(
      "ExecStartPost=/bin/sh -c \"until test -e '/tmp/up'; do sleep 1; done\"\nTimeoutStartSec=20\n",
    )
  })

  it("warns about a cron schedule OnCalendar= cannot say, and writes no timer for it", async () => {
    const config = await loadShop(sandbox(), '[daemons.job]\nrun = "x"\ncron = "0 0 1 15 * 1"\n')
    const { files, warnings } = exportSystemd(config)
    expect(files.map((f) => f.path)).toEqual(["shop--job.service"])
    expect(warnings).toEqual([
      "shop/job: cron (0 0 1 15 * 1) sets both day and weekday, which cron joins with OR and systemd with AND: no timer written",
    ])
  })

  it.skipIf(!hasSystemdAnalyze)("the units pass systemd-analyze verify without a complaint", async () => {
    const sb = sandbox()
    const { files } = exportSystemd(await loadShop(sb))
    const dir = mkdtempSync(join(tmpdir(), "supervisor-export-units-"))
    try {
      for (const f of files) writeFileSync(join(dir, f.path), f.content)
      const r = spawnSync("systemd-analyze", ["verify", "--man=no", ...files.map((f) => f.path)], {
        cwd: dir,
        encoding: "utf8",
      })
      expect(r.stderr).toBe("")
      expect(r.status).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
