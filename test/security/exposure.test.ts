/**
 * What a running supervisor (the built CLI, `--web-port 0`) lets out: the token must be nowhere a
 * daemon, a hook, another user or a page without it can see, and daemons see only their own
 * `env`. Files it writes are 0600 in 0700 directories. One supervisor for the first part; then
 * it is restarted with `api.token` set in the settings file instead of `SUPERVISOR_API_TOKEN`.
 */
import { randomBytes } from "node:crypto"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  cmdlineOf,
  type DaemonSandbox,
  daemonPids,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
  supervisorPids,
  waitFor,
} from "../e2e/harness.js"

const T = 30_000
const TOKEN = `envtok-${randomBytes(16).toString("hex")}`
const SECRET_A = `only-for-a-${randomBytes(8).toString("hex")}`

let sb: DaemonSandbox
let dir: string
let out: string
let base: string

const http = (
  method: string,
  path: string,
  headers: Record<string, string> = {},
  url = base,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> =>
  new Promise((resolve, reject) => {
    const u = new URL(path, url)
    const req = request(
      { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method, headers, agent: false },
      (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on("error", reject)
    req.end()
  })

/** Every file under `root` (recursively). */
const filesUnder = (root: string): Array<string> =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(root, e.name)) : [join(root, e.name)],
  )
const dirsUnder = (root: string): Array<string> =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [join(root, e.name), ...dirsUnder(join(root, e.name))])

const envFile = (name: string) => readFileSync(join(out, name), "utf8")

beforeAll(async () => {
  sb = makeDaemonSandbox()
  // where daemons and hooks write what they see (world-writable: the root variant runs as nobody)
  out = mkdtempSync(join(tmpdir(), "sv-sec-out-"))
  chmodSync(out, 0o1777)
  const dump = (name: string) => `env > ${out}/${name}.env`
  dir = sb.project(
    "app",
    `
[daemons.a]
run = "${dump("a-run")}; echo a says hi; exec sleep 300"
ready_cmd = "${dump("a-ready")}"
env = { SECRET_A = "${SECRET_A}" }
[daemons.a.hooks]
on_ready = "${dump("a-hook")}"

[daemons.b]
run = "${dump("b-run")}; echo b says hi; exec sleep 300"
ready_cmd = "${dump("b-ready")}"
env = { B_VAR = "b" }
depends = ["a"]
[daemons.b.hooks]
on_ready = "${dump("b-hook")}"
`,
  )
  // what an earlier version left: a state directory and logs readable by the group
  mkdirSync(join(sb.stateDir, "logs"), { recursive: true, mode: 0o750 })
  chmodSync(sb.stateDir, 0o750)
  chmodSync(join(sb.stateDir, "logs"), 0o750)
  writeFileSync(join(sb.stateDir, "logs", "old--daemon.log"), "an old line\n", { mode: 0o640 })
  chmodSync(join(sb.stateDir, "logs", "old--daemon.log"), 0o640)
  // the proxy too, for its CA key
  const env = {
    ...sb.env,
    SUPERVISOR_API_TOKEN: TOKEN,
    SUPERVISOR_PROXY_ENABLE: "true",
    SUPERVISOR_PROXY_PORT: String(await freePort()),
  }
  const started = sb.cli(["supervisor", "start", "--web-port", "0"], dir, env)
  expect(started.status, started.stderr).toBe(0)
  base = (JSON.parse(sb.cli(["supervisor", "status", "--json"], dir, env).stdout) as { web_url: string })
    .web_url
  const r = sb.cli(["start", "b"], dir, env)
  expect(r.status, r.stderr).toBe(0)
  await waitFor("the proxy's CA key", () => existsSync(join(sb.stateDir, "proxy", "ca-key.pem")))
  for (const name of ["a-run", "a-ready", "a-hook", "b-run", "b-ready", "b-hook"])
    await waitFor(
      `${name}.env`,
      () => existsSync(join(out, `${name}.env`)) && envFile(`${name}.env`).includes("PATH="),
    )
}, T)
afterAll(() => {
  sb.destroy()
  rmSync(out, { recursive: true, force: true })
})

describe("the token stays secret (e2e)", () => {
  it("SUPERVISOR_API_TOKEN is the token: `supervisor supervisor token` prints it and the API takes it", async () => {
    expect(
      sb.cli(["supervisor", "token"], dir, { ...sb.env, SUPERVISOR_API_TOKEN: TOKEN }).stdout.trim(),
    ).toBe(TOKEN)
    expect((await http("GET", "/api/daemons", { "x-supervisor-token": TOKEN })).status).toBe(200)
    expect((await http("GET", "/api/daemons", { "x-supervisor-token": `${TOKEN}x` })).status).toBe(401)
  })

  it("no page, error or document served holds it", async () => {
    const answers = [
      await http("GET", "/"),
      await http("GET", "/login?code=nope"),
      await http("GET", "/api/daemons"),
      await http("GET", "/api/daemons", { "x-supervisor-token": "wrong" }),
      await http("GET", "/api/daemons", { host: "evil.com" }),
      await http("GET", "/nope"),
      await http("GET", "/api/daemons/a%2Fb%2Fc", { "x-supervisor-token": TOKEN }),
      await http("POST", "/api/daemons/app%2Fnope/start", { "x-supervisor-token": TOKEN }),
      await http("GET", "/api/openapi.json", { "x-supervisor-token": TOKEN }),
      await http("GET", "/api/daemons", { "x-supervisor-token": TOKEN }),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 401, 401, 401, 403, 404, 400, 200, 200, 200])
    for (const a of answers) {
      expect(a.body).not.toContain(TOKEN)
      expect(JSON.stringify(a.headers)).not.toContain(TOKEN)
      expect(a.body).not.toMatch(STACK_LINE)
    }
  })

  it("no log line, no command line, no daemon's or hook's environment holds it", () => {
    const logs = join(sb.stateDir, "logs")
    const files = filesUnder(logs)
    expect(files.some((f) => f.endsWith("supervisor.log"))).toBe(true)
    for (const f of files) expect(readFileSync(f, "latin1"), f).not.toContain(TOKEN)
    expect(readFileSync(join(logs, "supervisor.log"), "utf8")).toContain("Web UI listening on")
    const sup = supervisorPids(sb.stateDir)
    const daemons = daemonPids(sb.stateDir)
    expect(sup).toHaveLength(1)
    expect(daemons.length).toBeGreaterThanOrEqual(2)
    for (const pid of [...sup, ...daemons])
      expect(cmdlineOf(pid).join(" "), `pid ${pid}`).not.toContain(TOKEN)
    for (const pid of daemons)
      expect(readFileSync(`/proc/${pid}/environ`, "latin1"), `pid ${pid}`).not.toContain(TOKEN)
    for (const name of ["a-run", "a-ready", "a-hook", "b-run", "b-ready", "b-hook"])
      expect(envFile(`${name}.env`), name).not.toContain(TOKEN)
    const status = sb.cli(["supervisor", "status", "--json"], dir)
    expect(status.stdout + status.stderr).not.toContain(TOKEN)
  })
})

describe("daemons see only their own env (e2e)", () => {
  it("run, ready_cmd and hooks of b never see a's env; a's do (the check can see)", () => {
    for (const name of ["a-run", "a-ready", "a-hook"]) {
      expect(envFile(`${name}.env`), name).toContain(`SECRET_A=${SECRET_A}`)
      expect(envFile(`${name}.env`), name).not.toContain("B_VAR=")
      expect(envFile(`${name}.env`), name).toContain("SUPERVISOR_DAEMON_ID=app/a")
    }
    for (const name of ["b-run", "b-ready", "b-hook"]) {
      expect(envFile(`${name}.env`), name).not.toContain(SECRET_A)
      expect(envFile(`${name}.env`), name).toContain("B_VAR=b")
      expect(envFile(`${name}.env`), name).toContain("SUPERVISOR_DAEMON_ID=app/b")
    }
  })
})

describe("file modes (e2e)", () => {
  it("state dir, socket, state file and logs: 0700 directories, 0600 files, owned by the supervisor's user", () => {
    const uid = process.getuid?.()
    const mode = (p: string) => statSync(p).mode & 0o777
    expect(mode(sb.stateDir)).toBe(0o700)
    const socket = join(sb.stateDir, "sock", "api.sock")
    expect(statSync(socket).isSocket()).toBe(true)
    expect(mode(socket)).toBe(0o600)
    const state = filesUnder(sb.stateDir).filter((f) => /state\.(json|toml)$/.test(f))
    expect(state.length, filesUnder(sb.stateDir).join("\n")).toBeGreaterThan(0)
    for (const f of state) expect(mode(f), f).toBe(0o600)
    for (const d of dirsUnder(sb.stateDir)) expect(mode(d), d).toBe(0o700)
    for (const f of filesUnder(join(sb.stateDir, "logs"))) expect(mode(f), f).toBe(0o600)
    expect(mode(join(sb.stateDir, "proxy"))).toBe(0o700)
    expect(mode(join(sb.stateDir, "proxy", "ca-key.pem"))).toBe(0o600)
    for (const p of [...filesUnder(sb.stateDir), ...dirsUnder(sb.stateDir)])
      if (!p.endsWith(".sock")) expect(statSync(p).uid, p).toBe(uid)
  })
})

describe("web login (e2e)", () => {
  it("the one-time link of `supervisor web` works once; its cookie is HttpOnly, SameSite=Strict and expires", async () => {
    const link = sb.cli(["web"], dir).stdout.trim()
    expect(link).toMatch(/\/login\?code=[\w-]+$/)
    expect(link).not.toContain(TOKEN)
    const first = await http("GET", link)
    expect(first.status).toBe(303)
    const cookie = String(first.headers["set-cookie"])
    expect(cookie).toMatch(/^supervisor_session=[\w-]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict/)
    const session = cookie.split(";")[0]!
    expect((await http("GET", "/api/daemons", { cookie: session })).status).toBe(200)
    const again = await http("GET", link)
    expect(again.status).toBe(401)
    expect(again.headers["set-cookie"]).toBeUndefined()
    // logout: the same cookie is refused from then on
    expect((await http("POST", "/logout", { cookie: session })).status).toBe(200)
    expect((await http("GET", "/api/daemons", { cookie: session })).status).toBe(401)
  })
})

describe("api.token in the settings file (e2e)", () => {
  it(
    "overrides the stored token; the stored one is refused",
    async () => {
      expect(sb.cli(["supervisor", "stop"], dir).status).toBe(0)
      await waitFor("the supervisor to exit", () => supervisorPids(sb.stateDir).length === 0)
      // a token stored by an earlier start: 0600, and no longer the one once api.token is set
      const stored = sb.cli(["supervisor", "token"], dir).stdout.trim()
      expect(stored).toMatch(/^[0-9a-f]{64}$/)
      expect(statSync(join(sb.stateDir, "api-token")).mode & 0o777).toBe(0o600)
      const configured = `cfgtok-${randomBytes(16).toString("hex")}`
      const port = await freePort()
      sb.write({
        "home/.config/supervisor/config.toml": `[settings.api]\ntoken = "${configured}"\n[settings.web]\nauto_start = true\nbind_port = ${port}\n`,
      })
      expect(sb.cli(["supervisor", "start"], dir).status).toBe(0)
      const url = `http://127.0.0.1:${port}`
      expect(sb.cli(["supervisor", "token"], dir).stdout.trim()).toBe(configured)
      await waitFor("the web listener", () =>
        http("GET", "/", {}, url).then(
          (r) => r.status === 200,
          () => false,
        ),
      )
      expect((await http("GET", "/api/stats", { "x-supervisor-token": configured }, url)).status).toBe(200)
      expect((await http("GET", "/api/stats", { "x-supervisor-token": stored }, url)).status).toBe(401)
      for (const f of filesUnder(join(sb.stateDir, "logs")))
        expect(readFileSync(f, "latin1"), f).not.toContain(configured)
    },
    T,
  )
})
