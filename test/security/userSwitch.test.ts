/**
 * A root supervisor running daemons as another `user` (the built CLI): the daemon, its
 * `ready_cmd` and its hooks drop the supervisor's supplementary groups, every file stays root's
 * (0600 in 0700 directories), and the daemon can read neither the token nor the logs. Needs root
 * to switch users; without root the start is refused (test/e2e/user.test.ts checks that message).
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  BIN,
  type DaemonSandbox,
  daemonPids,
  makeDaemonSandbox,
  storedLogs,
  supervisorPids,
  waitFor,
} from "../e2e/harness.js"

const root = process.getuid?.() === 0
const T = 30_000
/** Supplementary groups the supervisor is given (adm, dialout): none of them may reach the daemon. */
const GROUPS = ["4", "20"]

let sb: DaemonSandbox
let dir: string
let out: string

const groupsOf = (status: string) =>
  (/^Groups:\s*(.*)$/m.exec(status)?.[1] ?? "").trim().split(/\s+/).filter(Boolean)

beforeAll(async () => {
  sb = makeDaemonSandbox()
  out = mkdtempSync(join(tmpdir(), "sv-sec-user-"))
  chmodSync(out, 0o1777)
  // only the supervisor's own modes may keep `nobody` out: the sandbox itself is open
  chmodSync(sb.root, 0o755)
  const token = join(sb.stateDir, "api-token")
  dir = sb.project(
    "app",
    `
[daemons.web]
user = "nobody"
run = """grep Groups /proc/self/status > ${out}/run.groups
cat ${token} > /dev/null 2>&1; echo token-read=$?
cat ${sb.stateDir}/logs/supervisor.log > /dev/null 2>&1; echo log-read=$?
ls ${sb.stateDir} > /dev/null 2>&1; echo state-list=$?
exec sleep 300"""
ready_cmd = "grep Groups /proc/self/status > ${out}/ready.groups"
[daemons.web.hooks]
on_ready = "grep Groups /proc/self/status > ${out}/hook.groups"
`,
  )
  if (!root) return
  // the supervisor (started by this CLI) inherits the supplementary groups setpriv gives it
  const r = spawnSync(
    "setpriv",
    [`--groups=${GROUPS.join(",")}`, process.execPath, BIN, "supervisor", "start", "--web-port", "0"],
    { cwd: dir, env: sb.env, encoding: "utf8", timeout: T },
  )
  expect(r.status, r.stderr).toBe(0)
  expect(sb.cli(["start", "web"], dir).status).toBe(0)
  for (const f of ["run", "ready", "hook"])
    await waitFor(
      `${f}.groups`,
      () => existsSync(join(out, `${f}.groups`)) && readFileSync(join(out, `${f}.groups`), "utf8") !== "",
    )
}, T)
afterAll(() => {
  sb.destroy()
  rmSync(out, { recursive: true, force: true })
})

describe("user switching (e2e)", () => {
  it(
    root
      ? "drops the supervisor's supplementary groups in run, ready_cmd and hooks"
      : "refuses to switch users without root",
    () => {
      if (!root) {
        const r = sb.cli(["start", "web"], dir)
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(/running as user nobody needs a supervisor running as root/)
        return
      }
      const [sup] = supervisorPids(sb.stateDir)
      // the check can see: the supervisor has them
      expect(groupsOf(readFileSync(`/proc/${sup}/status`, "utf8"))).toEqual(expect.arrayContaining(GROUPS))
      const [daemon] = daemonPids(sb.stateDir, "app/web")
      const status = readFileSync(`/proc/${daemon}/status`, "utf8")
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe("65534")
      for (const groups of [
        groupsOf(status),
        ...["run", "ready", "hook"].map((f) => groupsOf(readFileSync(join(out, `${f}.groups`), "utf8"))),
      ])
        for (const g of GROUPS) expect(groups).not.toContain(g)
    },
    T,
  )

  it.runIf(root)(
    "files stay root's, 0600 in 0700 directories: the daemon reads neither token nor logs",
    async () => {
      const lines = await waitFor("the daemon's checks in its log", async () => {
        const l = (await storedLogs(sb.stateDir, "app/web")).map((e) => e.message)
        return l.some((m) => m.startsWith("state-list=")) ? l : undefined
      })
      expect(lines).toEqual(expect.arrayContaining(["token-read=1", "log-read=1", "state-list=2"]))
      const walk = (d: string): Array<string> =>
        readdirSync(d, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? [join(d, e.name), ...walk(join(d, e.name))] : [join(d, e.name)],
        )
      for (const p of [sb.stateDir, ...walk(sb.stateDir)]) {
        const st = statSync(p)
        expect(st.uid, p).toBe(0)
        expect(st.mode & 0o777, p).toBe(st.isDirectory() ? 0o700 : 0o600)
      }
    },
    T,
  )
})
