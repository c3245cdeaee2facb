/**
 * Ports through the built CLI against a real supervisor: the check before start with a port
 * the test itself holds, bump, PORT/PORT0.. injection (the daemon listens where it is told),
 * the ports in start/status/list/API, templates, and the `--expected-port --bump` flags.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { docExamples } from "./docExamples.js"
import {
  type DaemonSandbox,
  daemonEntry,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 30_000
let sb: DaemonSandbox

/** Listens on 127.0.0.1:<port> in this process (the "other program" holding a port). */
const hold = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(port, "127.0.0.1", () => resolve(s))
  })
const release = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()))

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer()
    s.once("error", () => resolve(false))
    s.listen(port, "::", () => s.close(() => resolve(true)))
  })

/** `n` consecutive free ports (the first one returned). */
const freeRun = async (n: number): Promise<number> => {
  for (;;) {
    const base = await freePort()
    if (base + n > 65535) continue
    let ok = true
    for (let i = 1; i < n && ok; i++) ok = await bindable(base + i)
    if (ok) return base
  }
}

/** A daemon that listens on each of $PORT0..$PORTn (or $PORT) and writes its env to <name>.env. */
const LISTEN_JS = `
const fs = require("node:fs")
const vars = Object.entries(process.env).filter(([k]) => /^PORT\\d*$/.test(k)).sort()
fs.writeFileSync(process.argv[2] + ".env", vars.map(([k, v]) => k + "=" + v).join("\\n"))
const ports = new Set(vars.map(([, v]) => Number(v)))
for (const p of ports) require("node:net").createServer().listen(p, "127.0.0.1")
`
const listener = (name: string, extra: string) =>
  `[daemons.${name}]\nrun = "exec node listen.js ${name}"\n${extra}\n`

const envOf = (dir: string, name: string) =>
  readFileSync(join(dir, `${name}.env`), "utf8")
    .trim()
    .split("\n")

beforeAll(() => {
  sb = makeDaemonSandbox()
})
afterAll(() => sb.destroy())

const project = (name: string, toml: string) => {
  const dir = sb.project(name, toml)
  writeFileSync(join(dir, "listen.js"), LISTEN_JS)
  return dir
}
const cli = (args: Array<string>, dir: string) => {
  const r = sb.cli(args, dir)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

describe("ports (e2e)", () => {
  it(
    "free ports: PORT and PORT0..n injected; start, status, list and the API report them; active_port is live",
    async () => {
      const p = await freeRun(2)
      const dir = project("free", listener("web", `port = [${p}, ${p + 1}]\nready_port = ${p + 1}`))
      const r = cli(["start", "web"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`free/web is running \\(pid \\d+, ports ${p}, ${p + 1}\\)`))
      expect(envOf(dir, "web")).toEqual([`PORT=${p}`, `PORT0=${p}`, `PORT1=${p + 1}`])
      const entry = await waitFor("active_port", async () => {
        const e = await daemonEntry(sb.stateDir, "free/web")
        return e?.active_port === p ? e : undefined
      })
      expect(entry.resolved_port).toEqual([p, p + 1])
      const status = cli(["status", "web"], dir)
      // every port the daemon got, the one it listens on marked
      expect(status.stdout).toMatch(new RegExp(`^Port: ${p} \\(active\\), ${p + 1}$`, "m"))
      const list = cli(["list"], dir)
      expect(tableRow(list.stdout, "free/web")?.[7]).toBe(`${p},${p + 1}`)
      expect(cli(["stop", "web"], dir).status).toBe(0)
      const stopped = await daemonEntry(sb.stateDir, "free/web")
      expect(stopped?.active_port).toBeNull()
      expect(stopped?.resolved_port).toEqual([p, p + 1])
    },
    T,
  )

  it(
    "a taken port without bump: exit 1 naming the port and the process holding it; the daemon never ran",
    async () => {
      const p = await freePort()
      const held = await hold(p)
      try {
        const dir = project("taken", listener("web", `port = ${p}\nready_port = ${p}`))
        const r = cli(["start", "web"], dir)
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(
          new RegExp(
            `taken/web failed to start: cannot start daemon taken/web: port ${p} is already in use by .+ \\(pid ${process.pid}\\); stop that process, choose another port, or set port.bump = true`,
          ),
        )
        expect(existsSync(join(dir, "web.env"))).toBe(false)
        expect((await daemonEntry(sb.stateDir, "taken/web"))?.status.type).toBe("failed")
      } finally {
        await release(held)
      }
    },
    T,
  )

  it(
    "bump: the ports shift together to the first free offset; PORT follows; start says so",
    async () => {
      const p = await freeRun(4)
      const held = await hold(p + 1)
      try {
        // [p, p+1]: offset 0 hits p+1, offset 1 hits p+1; offset 2 gives [p+2, p+3].
        const dir = project(
          "bumped",
          listener(
            "web",
            `port = { expect = [${p}, ${p + 1}], bump = 3 }\nready_port = "{{ daemons.web.port }}"`,
          ),
        )
        const r = cli(["start", "web"], dir)
        expect(r.status, r.stderr).toBe(0)
        // only p+1 is held: the message must not say both were in use
        expect(r.stdout).toContain(`ports ${p + 2}, ${p + 3}; shifted from ${p}, ${p + 1}, not all free)`)
        expect(envOf(dir, "web")).toEqual([`PORT=${p + 2}`, `PORT0=${p + 2}`, `PORT1=${p + 3}`])
        const json = JSON.parse(cli(["list", "--json"], dir).stdout) as Array<{
          id: { qualified: string }
          resolved_port: Array<number>
        }>
        expect(json.find((e) => e.id.qualified === "bumped/web")?.resolved_port).toEqual([p + 2, p + 3])
        cli(["stop", "web"], dir)
      } finally {
        await release(held)
      }
    },
    T,
  )

  it(
    "bump N used up: exit 1 saying how many shifts were tried",
    async () => {
      const p = await freeRun(3)
      const held = await Promise.all([hold(p), hold(p + 1), hold(p + 2)])
      try {
        const dir = project("exhausted", listener("web", `port = { expect = [${p}], bump = 2 }`))
        const r = cli(["start", "web"], dir)
        expect(r.status).toBe(1)
        expect(r.stderr).toContain(`port ${p} and the next 2 offsets are all in use`)
      } finally {
        await Promise.all(held.map(release))
      }
    },
    T,
  )

  it(
    "start --expected-port P --bump on a daemon without port; a template renders the bumped port",
    async () => {
      const p = await freeRun(2)
      const held = await hold(p)
      try {
        const dir = project(
          "flags",
          `${listener("db", "ready_delay = 0.2")}\n[daemons.check]\nrun = "exec sleep 300"\nready_cmd = "test {{ daemons.db.port }} = ${p + 1}"\n`,
        )
        const r = cli(["start", "db", "--expected-port", String(p), "--bump"], dir)
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain(`port ${p + 1}; port ${p} was in use`)
        // ready after 0.2 s, whether or not its Node has written the file yet
        await waitFor("db.env", () => existsSync(join(dir, "db.env")))
        expect(envOf(dir, "db")).toEqual([`PORT=${p + 1}`])
        const check = cli(["start", "check"], dir)
        expect(check.status, check.stderr).toBe(0)
        cli(["stop", "db", "check"], dir)
      } finally {
        await release(held)
      }
    },
    T,
  )

  it(
    "usage errors: --bump without any port, a bad --expected-port, a bad --bump value",
    () => {
      const dir = project("usage", listener("web", "ready_delay = 0.2"))
      const lone = cli(["start", "web", "--bump", "3"], dir)
      expect(lone.status).toBe(2)
      expect(lone.stderr).toContain("--bump: none of the daemons being started has ports")
      const bad = cli(["start", "web", "--expected-port", "70000"], dir)
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain('--expected-port "70000": expected a TCP port number (1-65535)')
      const badBump = cli(["start", "web", "--expected-port", "4000", "--bump=many"], dir)
      expect(badBump.status).toBe(2)
      expect(badBump.stderr).toContain('--bump "many"')
      // a negative count is a bad value, not an unknown option "-1"
      const negative = cli(["start", "web", "--expected-port", "4000", "--bump", "-1"], dir)
      expect(negative.status).toBe(2)
      expect(negative.stderr).toContain(
        'error: --bump "-1": expected a number of attempts, true (no limit), or nothing (settings.supervisor.port_bump_attempts)',
      )
    },
    T,
  )

  it(
    "docs/ports.md examples run",
    async () => {
      const examples = docExamples(readFileSync(join(__dirname, "../../docs/ports.md"), "utf8")).filter(
        (e) => e.runs.length > 0,
      )
      expect(examples.length).toBeGreaterThanOrEqual(2)
      const ports = new Map<number, number>()
      for (const e of examples) {
        const base = await freeRun(e.ports.length)
        for (const [i, p] of e.ports.entries()) ports.set(p, base + i)
      }
      const remap = (text: string) => {
        let out = text
        for (const [from, to] of ports) out = out.replaceAll(String(from), String(to))
        return out
      }
      const dir = sb.project("docs", `${examples.map((e) => remap(e.toml)).join("\n\n")}\n`)
      for (const e of examples)
        for (const run of e.runs) {
          const r = await sb.cliAsync(run.args, dir)
          expect(r.status, `docs/ports.md:${e.line}: ${r.stdout}\n${r.stderr}`).toBe(run.status)
        }
    },
    T,
  )
})
