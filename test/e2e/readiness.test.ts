/**
 * Readiness through the built CLI against a real supervisor: every check type with a
 * daemon of the test's own (an HTTP server, a TCP listener, log lines, a flag file), each
 * timeout (exit status 124, the daemon gone afterwards), one-shot daemons, templates and
 * the `start`/`run` overrides. One supervisor for the file; every test uses its own daemons.
 */
import { readFileSync } from "node:fs"
import { request } from "node:http"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { docExamples } from "./docExamples.js"
import {
  type CliResult,
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
} from "./harness.js"

const T = 30_000
const NODE = process.execPath

/** An HTTP server on 127.0.0.1:<port> after <delay> ms; /health answers <status>. */
const HTTP_JS = `
const [port, delay, status] = process.argv.slice(2).map(Number)
setTimeout(() => {
  require("node:http")
    .createServer((req, res) => {
      res.writeHead(req.url === "/health" ? status : 404, { connection: "close" })
      res.end("ok")
    })
    .listen(port, "127.0.0.1", () => console.log("listening on " + port))
}, delay)
`
/** A TCP listener on 127.0.0.1:<port> after <delay> ms. */
const TCP_JS = `
const [port, delay] = process.argv.slice(2).map(Number)
setTimeout(() => require("node:net").createServer((s) => s.end()).listen(port, "127.0.0.1"), delay)
`
/** Prints "booting" at once, then a coloured "Server ready on port <n>" on stderr after <delay> ms. */
const SAY_JS = `
const delay = Number(process.argv[2])
console.log("booting")
setTimeout(() => process.stderr.write("\\u001b[32mServer ready\\u001b[0m on port \\u001b[1m4321\\u001b[22m\\n"), delay)
setInterval(() => {}, 1 << 30)
`
/** Creates ./ready.flag after <delay> ms. */
const FLAG_JS = `
setTimeout(() => require("node:fs").writeFileSync("ready.flag", "yes"), Number(process.argv[2]))
setInterval(() => {}, 1 << 30)
`

const httpStatus = (url: string): Promise<number | undefined> =>
  new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode)
    })
    req.on("error", () => resolve(undefined))
    req.setTimeout(5000, () => req.destroy())
    req.end()
  })

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createConnection({ host: "127.0.0.1", port })
    s.once("connect", () => {
      s.destroy()
      resolve(true)
    })
    s.once("error", () => resolve(false))
  })

const node = (script: string, ...args: Array<string | number>) =>
  JSON.stringify(`exec "${NODE}" ${script} ${args.join(" ")}`)

let sb: DaemonSandbox
let app: string
const P: Record<string, number> = {}
const cli = (...args: Array<string>) => sb.cli(args, app)
const cliAsync = (...args: Array<string>) => sb.cliAsync(args, app)
const show = (r: CliResult) => `status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`
const pidOf = (r: CliResult, id: string): number => {
  const m = new RegExp(`app/${id} is running \\(pid (\\d+)\\)`).exec(r.stdout)
  expect(m, show(r)).not.toBeNull()
  return Number(m![1])
}
/** A readiness timeout: exit 124, the checks named, the daemon's processes gone, status errored. */
const expectTimedOut = async (r: CliResult, id: string, ...named: Array<string>) => {
  expect(r.status, show(r)).toBe(124)
  expect(r.stderr).toContain(`app/${id} failed to start: app/${id} was not ready in time:`)
  for (const n of named) expect(r.stderr).toContain(n)
  expect(r.stderr).not.toMatch(STACK_LINE)
  expect(daemonPids(sb.stateDir, `app/${id}`)).toEqual([])
  const e = await daemonEntry(sb.stateDir, `app/${id}`)
  expect(e?.status.type).toBe("errored")
  expect(e?.pid).toBeNull()
}

beforeAll(async () => {
  for (const name of ["httpd", "auth", "auth401", "tcp", "closed", "db", "api", "nodb", "over", "adhoc"])
    P[name] = await freePort()
  sb = makeDaemonSandbox()
  // Poll fast: the tests wait on real servers.
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
  app = sb.project(
    "app",
    `
[daemons.httpd]
run = ${node("http.js", P.httpd!, 700, 200)}
ready_http = "http://127.0.0.1:${P.httpd}/health"

[daemons.auth]
run = ${node("http.js", P.auth!, 300, 401)}
ready_http = { url = "http://127.0.0.1:${P.auth}/health", status = [401] }

[daemons.auth401]
run = ${node("http.js", P.auth401!, 0, 401)}
ready_http = { url = "http://127.0.0.1:${P.auth401}/health", timeout = "1500ms" }

[daemons.tcp]
run = ${node("tcp.js", P.tcp!, 700)}
ready_port = ${P.tcp}

[daemons.logline]
run = ${node("say.js", 500)}
ready_output = "^Server ready on port \\\\d+$"

[daemons.early]
run = "echo READY; exec sleep 300"
ready_output = "^READY$"

[daemons.flag]
run = ${JSON.stringify(`rm -f ready.flag; exec "${NODE}" flag.js 600`)}
dir = "flagdir"
env = { MODE = "e2e" }
ready_cmd = 'test "$MODE" = e2e && test "$SUPERVISOR_DAEMON_ID" = app/flag && test -f ready.flag'

[daemons.to_output]
run = "echo hello; exec sleep 300"
ready_output = { pattern = "never printed", timeout = "1s" }

[daemons.to_http]
run = "exec sleep 300"
ready_http = { url = "http://127.0.0.1:${P.closed}/", timeout = "1s" }

[daemons.to_port]
run = "exec sleep 300"
ready_port = { port = ${P.closed}, timeout = "1s" }

[daemons.to_cmd]
run = "sleep 300"
ready_cmd = { run = "exit 1", timeout = "1s" }

[daemons.to_all]
run = "exec sleep 300"
ready_port = { port = ${P.closed}, timeout = "500ms" }
ready_cmd = { run = "false", timeout = "1200ms" }

[daemons.partial]
run = "sleep 1.5; echo late; exec sleep 300"
ready_port = { port = ${P.closed}, timeout = "300ms" }
ready_output = "^late$"

[daemons.oneshot]
run = "echo task done"
ready_http = "http://127.0.0.1:${P.closed}/"

[daemons.oneshotfail]
run = "echo 'boom: no config'; exit 4"
ready_port = ${P.closed}

[daemons.db]
run = ${node("tcp.js", P.db!, 300)}
port = ${P.db}
ready_port = "{{ daemons.db.port }}"

[daemons.api]
run = ${node("http.js", P.api!, 300, 200)}
port = ${P.api}
ready_http = "http://127.0.0.1:{{ daemons.api.port }}/health"

[daemons.dbclient]
run = "exec sleep 300"
ready_cmd = ${JSON.stringify(`"${NODE}" -e "require('net').connect({{ daemons.db.port }}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"`)}

[daemons.dblog]
run = "echo 'using db at ${P.db}'; exec sleep 300"
ready_output = "^using db at {{ daemons.app/db.port }}$"

[daemons.nodb]
run = ${node("tcp.js", P.nodb!, 0)}
port = ${P.nodb}
ready_delay = 0.2

[daemons.needsnodb]
run = "exec sleep 300"
ready_port = "{{ daemons.nodb.port }}"

[daemons.portless]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.needsportless]
run = "exec sleep 300"
ready_port = "{{ daemons.portless.port }}"

[daemons.halfsec]
run = "exec sleep 300"
ready_delay = "500ms"

[daemons.over]
run = ${node("http.js", P.over!, 300, 200)}
ready_output = { pattern = "never printed", timeout = "30s" }
`,
  )
  sb.write({
    "app/http.js": HTTP_JS,
    "app/tcp.js": TCP_JS,
    "app/say.js": SAY_JS,
    "app/flagdir/flag.js": FLAG_JS,
  })
}, T)

afterAll(() => sb?.destroy(), T)

describe("readiness checks", () => {
  it(
    "ready_http: waits until the URL answers 2xx; progress names the URL",
    async () => {
      const r = cli("start", "httpd")
      expect(r.status, show(r)).toBe(0)
      pidOf(r, "httpd")
      expect(await httpStatus(`http://127.0.0.1:${P.httpd}/health`)).toBe(200)
      // not a terminal: one line on stdout when it starts waiting, then the outcome
      expect(r.stdout).toMatch(
        new RegExp(`^app/httpd waiting for http://127\\.0\\.0\\.1:${P.httpd}/health\n✓ app/httpd is running`),
      )
    },
    T,
  )

  it(
    "ready_http object form: a listed status (401) also means ready",
    async () => {
      const r = cli("start", "auth")
      expect(r.status, show(r)).toBe(0)
      expect(await httpStatus(`http://127.0.0.1:${P.auth}/health`)).toBe(401)
    },
    T,
  )

  it(
    "ready_http: a status that is neither 2xx nor listed never passes; its timeout fails the start with 124",
    async () => {
      const r = cli("start", "auth401")
      await expectTimedOut(
        r,
        "auth401",
        `ready_http (http://127.0.0.1:${P.auth401}/health) timed out after 1s 500ms`,
      )
    },
    T,
  )

  it(
    "ready_port: waits until the TCP port accepts connections",
    async () => {
      const r = cli("start", "tcp")
      expect(r.status, show(r)).toBe(0)
      expect(await accepts(P.tcp!)).toBe(true)
      expect(r.stdout).toContain(`app/tcp waiting for port ${P.tcp}`)
    },
    T,
  )

  it(
    "ready_output: a later stderr line with ANSI colours matches the regex",
    async () => {
      const r = cli("start", "logline")
      expect(r.status, show(r)).toBe(0)
      const e = await daemonEntry(sb.stateDir, "app/logline")
      expect(e?.status.type).toBe("running")
      const logs = cli("logs", "logline", "-n", "10")
      expect(logs.stdout).toContain("on port")
    },
    T,
  )

  it(
    "ready_output: a line printed right after the spawn counts",
    () => {
      const r = cli("start", "early")
      expect(r.status, show(r)).toBe(0)
      pidOf(r, "early")
    },
    T,
  )

  it(
    "ready_cmd: polled in the daemon's dir with its environment until it exits 0",
    async () => {
      const r = cli("start", "flag")
      expect(r.status, show(r)).toBe(0)
      expect((await daemonEntry(sb.stateDir, "app/flag"))?.status.type).toBe("running")
    },
    T,
  )
})

describe("readiness timeouts", () => {
  it(
    "ready_output timeout: exit 124 and the daemon is gone",
    async () => {
      await expectTimedOut(
        cli("start", "to_output"),
        "to_output",
        "ready_output (output matching /never printed/) timed out after 1s",
      )
    },
    T,
  )

  it(
    "ready_http timeout (connection refused): exit 124 and the daemon is gone",
    async () => {
      await expectTimedOut(
        cli("start", "to_http"),
        "to_http",
        `ready_http (http://127.0.0.1:${P.closed}/) timed out after 1s`,
      )
    },
    T,
  )

  it(
    "ready_port timeout: exit 124 and the daemon is gone",
    async () => {
      await expectTimedOut(
        cli("start", "to_port"),
        "to_port",
        `ready_port (port ${P.closed}) timed out after 1s`,
      )
    },
    T,
  )

  it(
    "ready_cmd timeout: exit 124 and the daemon (the shell and its child) is gone",
    async () => {
      await expectTimedOut(
        cli("start", "to_cmd"),
        "to_cmd",
        "ready_cmd (`exit 1` to exit 0) timed out after 1s",
      )
    },
    T,
  )

  it(
    "several checks: the start fails only when every one has timed out, naming each",
    async () => {
      const r = cli("start", "to_all")
      await expectTimedOut(
        r,
        "to_all",
        `ready_port (port ${P.closed}) timed out after 500ms`,
        "ready_cmd (`false` to exit 0) timed out after 1s 200ms",
      )
    },
    T,
  )

  it(
    "a check that timed out stops counting; another one can still pass",
    async () => {
      const r = cli("start", "partial")
      expect(r.status, show(r)).toBe(0)
      expect((await daemonEntry(sb.stateDir, "app/partial"))?.status.type).toBe("running")
    },
    T,
  )
})

describe("exits before ready", () => {
  it(
    "exit 0 before any check passed: a one-shot task that completed (exit 0)",
    async () => {
      const r = cli("start", "oneshot")
      expect(r.status, show(r)).toBe(0)
      expect(r.stdout).toContain("app/oneshot ran to completion (exit 0)")
      const e = await daemonEntry(sb.stateDir, "app/oneshot")
      expect(e?.status).toMatchObject({ type: "stopped", exit_code: 0 })
    },
    T,
  )

  it(
    "a non-zero exit before any check passed fails the start with the code and the last lines",
    () => {
      const r = cli("start", "oneshotfail")
      expect(r.status, show(r)).toBe(1)
      expect(r.stderr).toContain("app/oneshotfail exited with code 4")
      expect(r.stderr).toContain("boom: no config")
    },
    T,
  )
})

describe("templates", () => {
  it(
    "{{ daemons.<name>.port }} renders in ready_port, ready_http, ready_cmd and ready_output",
    async () => {
      const db = cli("start", "db")
      expect(db.status, show(db)).toBe(0)
      expect(db.stdout).toContain(`app/db waiting for port ${P.db}`)
      expect(await accepts(P.db!)).toBe(true)
      const api = cli("start", "api")
      expect(api.status, show(api)).toBe(0)
      expect(api.stdout).toContain(`app/api waiting for http://127.0.0.1:${P.api}/health`)
      expect(await httpStatus(`http://127.0.0.1:${P.api}/health`)).toBe(200)
      const client = cli("start", "dbclient")
      expect(client.status, show(client)).toBe(0)
      expect(client.stdout).toContain(`connect(${P.db}, '127.0.0.1')`)
      const log = cli("start", "dblog")
      expect(log.status, show(log)).toBe(0)
      expect(log.stdout).toContain(`app/dblog waiting for output matching /^using db at ${P.db}$/`)
    },
    T,
  )

  it(
    "a template naming a daemon the supervisor does not know, or one without a port, fails the start",
    async () => {
      const unknown = cli("start", "needsnodb")
      expect(unknown.status, show(unknown)).toBe(1)
      expect(unknown.stderr).toContain(
        'ready_port "{{ daemons.nodb.port }}": cannot render {{ daemons.nodb.port }}: no daemon app/nodb is known to the supervisor (start it first)',
      )
      expect(daemonPids(sb.stateDir, "app/needsnodb")).toEqual([])
      expect(cli("start", "portless").status).toBe(0)
      const noPort = cli("start", "needsportless")
      expect(noPort.status, show(noPort)).toBe(1)
      expect(noPort.stderr).toContain(
        "cannot render {{ daemons.portless.port }}: daemon app/portless has no port",
      )
      expect((await daemonEntry(sb.stateDir, "app/needsportless"))?.status.type).toBe("failed")
      // once the named daemon is known, the same start works
      expect(cli("start", "nodb").status).toBe(0)
      const known = cli("start", "needsnodb")
      expect(known.status, show(known)).toBe(0)
    },
    T,
  )
})

describe("CLI overrides replace the configured checks", () => {
  // `over` is configured with an output check that never passes (30 s timeout): each
  // override makes it ready quickly instead.
  const overrides: ReadonlyArray<[string, () => Array<string>]> = [
    ["--http", () => ["--http", `http://127.0.0.1:${P.over}/health`]],
    ["--ready-port", () => ["--ready-port", String(P.over)]],
    // pitchfork's name of --ready-port
    ["--port", () => ["--port", String(P.over)]],
    ["--output", () => ["--output", "^listening on \\d+$"]],
    [
      "--cmd",
      () => [
        "--cmd",
        `"${NODE}" -e "require('net').connect(${P.over}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"`,
      ],
    ],
  ]
  for (const [flag, args] of overrides) {
    it(
      `start ${flag}`,
      async () => {
        const r = await cliAsync("start", "over", "--force", ...args())
        expect(r.status, show(r)).toBe(0)
        expect(r.ms).toBeLessThan(20_000)
        expect(await httpStatus(`http://127.0.0.1:${P.over}/health`)).toBe(200)
      },
      T,
    )
  }

  it(
    "start --delay: the delay alone counts",
    async () => {
      const r = await cliAsync("start", "over", "--force", "--delay", "0.2")
      expect(r.status, show(r)).toBe(0)
      expect(r.stdout).toContain("app/over waiting for 200ms")
      expect(r.ms).toBeLessThan(20_000)
    },
    T,
  )

  it(
    "run --port: an ad-hoc daemon waits for its port",
    async () => {
      const r = cli("run", "adhoc", "--port", String(P.adhoc), "--", NODE, "tcp.js", String(P.adhoc), "500")
      expect(r.status, show(r)).toBe(0)
      expect(r.stdout).toContain(`app/adhoc waiting for port ${P.adhoc}`)
      expect(await accepts(P.adhoc!)).toBe(true)
    },
    T,
  )

  it(
    "run --output and --http",
    async () => {
      const out = cli(
        "run",
        "adhoc2",
        "--output",
        "^up$",
        "--",
        "sh",
        "-c",
        "sleep 0.3; echo up; exec sleep 300",
      )
      expect(out.status, show(out)).toBe(0)
      const port = await freePort()
      const web = cli(
        "run",
        "adhoc3",
        "--http",
        `http://127.0.0.1:${port}/health`,
        "--",
        NODE,
        "http.js",
        String(port),
        "300",
        "200",
      )
      expect(web.status, show(web)).toBe(0)
      expect(await httpStatus(`http://127.0.0.1:${port}/health`)).toBe(200)
    },
    T,
  )

  it(
    "invalid override values are usage errors (exit 2), nothing is started",
    async () => {
      for (const args of [
        ["--ready-port", "nope"],
        ["--ready-port", "70000"],
        ["--output", "("],
        ["--http", "localhost:3000"],
        ["--delay", "-1"],
        ["--cmd", "echo {{ daemons.over.host }}"],
      ]) {
        const r = cli("start", "to_port", ...args)
        expect(r.status, `${args.join(" ")}: ${show(r)}`).toBe(2)
        expect(r.stderr).toContain(`error: ${args[0]}`)
      }
      // --port is --ready-port's other name: its value is checked alike, named by the help's name
      const old = cli("start", "to_port", "--port", "nope")
      expect(old.status, show(old)).toBe(2)
      expect(old.stderr).toContain('error: --ready-port "nope"')
      expect(daemonPids(sb.stateDir, "app/to_port")).toEqual([])
    },
    T,
  )
})

describe("ready_delay as a duration", () => {
  it(
    'ready_delay = "500ms": ready half a second after the spawn',
    async () => {
      const r = await cliAsync("start", "halfsec")
      expect(r.status, show(r)).toBe(0)
      expect(r.stdout).toContain("app/halfsec waiting for 500ms")
      pidOf(r, "halfsec")
      expect(r.ms).toBeGreaterThanOrEqual(500)
      expect((await daemonEntry(sb.stateDir, "app/halfsec"))?.status.type).toBe("running")
    },
    T,
  )

  it(
    'ready_delay = "soon" is a configuration error naming the file, line and key',
    () => {
      const dir = sb.project("baddelay", '[daemons.soon]\nrun = "exec sleep 300"\nready_delay = "soon"\n')
      for (const args of [
        ["config", "validate"],
        ["start", "soon"],
      ]) {
        const r = sb.cli(args, dir)
        expect(r.status, show(r)).not.toBe(0)
        expect(r.stderr).toContain(
          `${join(dir, "supervisor.toml")}:3: daemons.soon.ready_delay: expected a duration such as "2s" or "500ms", or a number of seconds (0 or more)`,
        )
        expect(r.stderr).not.toMatch(STACK_LINE)
      }
    },
    T,
  )
})

describe("docs/readiness.md examples run", () => {
  const examples = docExamples(readFileSync(join(__dirname, "../../docs/readiness.md"), "utf8"))
  // Their ports are replaced with free ones, everywhere in the block and in its commands.
  const ports = new Map<number, number>()
  const remap = (text: string) => {
    let out = text
    for (const [from, to] of ports) out = out.replaceAll(String(from), String(to))
    return out
  }
  let docs: string

  beforeAll(async () => {
    for (const e of examples) for (const p of e.ports) ports.set(p, await freePort())
    docs = sb.project("docs", `${examples.map((e) => remap(e.toml)).join("\n\n")}\n`)
  }, T)

  it("every toml example says how it is run", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8)
    for (const e of examples) expect(e.runs.length, `docs/readiness.md:${e.line}`).toBeGreaterThan(0)
  })

  for (const e of examples) {
    it(
      `docs/readiness.md:${e.line}: ${e.runs.map((r) => `${r.args.join(" ")} => ${r.status}`).join(", ")}`,
      async () => {
        for (const run of e.runs) {
          const r = await sb.cliAsync(run.args.map(remap), docs)
          expect(r.status, `docs/readiness.md:${e.line}: ${show(r)}`).toBe(run.status)
          expect(r.stderr).not.toMatch(STACK_LINE)
        }
      },
      T,
    )
  }
})
