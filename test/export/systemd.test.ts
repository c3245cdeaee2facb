import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { exportSystemd } from "../../src/export/systemd.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "./fixture.js"

/** `systemd-analyze verify` on the files of an export: its complaints (empty when it accepts them). */
const verify = (files: ReadonlyArray<{ path: string; content: string }>) => {
  const dir = mkdtempSync(join(tmpdir(), "supervisor-export-units-"))
  try {
    for (const f of files) writeFileSync(join(dir, f.path), f.content)
    const r = spawnSync("systemd-analyze", ["verify", "--man=no", ...files.map((f) => f.path)], {
      cwd: dir,
      encoding: "utf8",
    })
    if (r.error !== undefined)
      throw new Error(`systemd-analyze could not run (${r.error.message}): apt-get install systemd`)
    return { status: r.status, stderr: r.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The command of an `ExecStart=/bin/sh -c "…"` line, as systemd passes it to sh. */
const execCommand = (unit: string): string => {
  const line = unit.split("\n").find((l) => l.startsWith('ExecStart=/bin/sh -c "'))!
  return line
    .slice('ExecStart=/bin/sh -c "'.length, -1)
    .replace(/\$\$/g, "$")
    .replace(/%%/g, "%")
    .replace(/\\(["\\])/g, "$1")
}

const HEALTHY = `[daemons.api]
run = "node server.js"
port = 3000
health = { http = "http://127.0.0.1:{{ daemons.api.port }}/health", interval = "15s", timeout = "3s", start_period = "20s" }

[daemons.queue]
run = "./queue"
health = { cmd = "test -e ok", interval = "30s", failures = 2 }
`

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

  it("the units pass systemd-analyze verify without a complaint", async () => {
    const { files } = exportSystemd(await loadShop(sandbox()))
    expect(verify(files)).toEqual({ status: 0, stderr: "" })
  })

  it("a health check is a timer running a check service while the daemon's unit runs", async () => {
    const { files, warnings } = exportSystemd(await loadShop(sandbox(), HEALTHY))
    expect(files.map((f) => f.path)).toEqual([
      "shop--api.service",
      "shop--api-health.service",
      "shop--api-health.timer",
      "shop--queue.service",
      "shop--queue-health.service",
      "shop--queue-health.timer",
    ])
    expect(fileNamed(files, "shop--api.service")).toContain("Wants=shop--api-health.timer\n")
    const timer = fileNamed(files, "shop--api-health.timer")
    expect(timer).toContain("PartOf=shop--api.service\n")
    expect(timer).toContain("OnActiveSec=35\nOnUnitActiveSec=15\n")
    expect(timer).toContain("Unit=shop--api-health.service\n")
    const check = fileNamed(files, "shop--api-health.service")
    expect(check).toContain("Requisite=shop--api.service\n")
    expect(execCommand(check)).toContain("curl -fsS -o /dev/null -m 3 'http://127.0.0.1:3000/health'")
    expect(warnings).toContain(
      "shop/api: health.http is checked with curl: it must be installed where the units run",
    )
    expect(verify(files)).toEqual({ status: 0, stderr: "" })
  })

  it("the check restarts the unit at the `failures`-th failure in a row, and a pass clears the count", async () => {
    const sb = sandbox()
    const { files } = exportSystemd(await loadShop(sb, HEALTHY))
    const command = execCommand(fileNamed(files, "shop--queue-health.service"))
    // a systemctl that writes down how it was called, in a directory of its own on PATH
    const dir = mkdtempSync(join(tmpdir(), "supervisor-health-check-"))
    try {
      writeFileSync(join(dir, "systemctl"), '#!/bin/sh\necho "$@" >> "$XDG_RUNTIME_DIR/calls"\n', {
        mode: 0o755,
      })
      const env = { ...process.env, PATH: `${dir}:${process.env.PATH}`, XDG_RUNTIME_DIR: dir }
      const run = () => spawnSync("/bin/sh", ["-c", command], { cwd: dir, env, encoding: "utf8" }).status
      const calls = () => (existsSync(join(dir, "calls")) ? readFileSync(join(dir, "calls"), "utf8") : "")
      expect(run()).toBe(0) // first failure: counted
      expect(calls()).toBe("")
      writeFileSync(join(dir, "ok"), "")
      expect(run()).toBe(0) // a pass clears the count
      rmSync(join(dir, "ok"))
      expect(run()).toBe(0)
      expect(calls()).toBe("")
      expect(run()).toBe(0) // second failure in a row: the daemon's unit is restarted
      expect(calls()).toBe("--user restart shop--queue.service\n")
      expect(run()).toBe(0) // counted again from zero
      expect(calls()).toBe("--user restart shop--queue.service\n")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
