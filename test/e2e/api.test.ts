/**
 * The HTTP API on TCP, through a real supervisor started by the built CLI with `--web-port 0`:
 * authentication, the Host check, every route of the spec's endpoint table with its JSON shape,
 * the one-segment ID rule, the log tail stream and the OpenAPI document.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createServer, request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, STACK_LINE, waitFor } from "./harness.js"

const T = 30_000
let sb: DaemonSandbox
let dir: string
let base: string
let token: string

interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

/** One HTTP request to the listener; `host` overrides the Host header. */
const http = (
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; host?: string; cookie?: string } = {},
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const headers: Record<string, string> = {}
    const tok = options.token === undefined ? token : options.token
    if (tok !== null) headers["x-supervisor-token"] = tok
    if (options.host !== undefined) headers.host = options.host
    if (options.cookie !== undefined) headers.cookie = options.cookie
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
    if (payload !== undefined) headers["content-type"] = "application/json"
    const req = request(url, { method, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        body += c
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    if (payload !== undefined) req.write(payload)
    req.end()
  })
const json = (r: Reply) => JSON.parse(r.body) as unknown

/**
 * Reads a log tail until `count` whole ndjson lines came (calling `onLine` with the number read
 * so far after each), then closes it. Fails after 10 s, saying what it got.
 */
const tail = (
  path: string,
  count: number,
  onLine: (got: number) => void = () => undefined,
): Promise<{ lines: Array<Record<string, unknown>>; contentType: string | undefined }> =>
  new Promise((resolve, reject) => {
    const lines: Array<Record<string, unknown>> = []
    let contentType: string | undefined
    const timer = setTimeout(() => {
      req.destroy()
      reject(
        new Error(`tail ${path}: ${lines.length} of ${count} lines after 10 s: ${JSON.stringify(lines)}`),
      )
    }, 10_000)
    const req = request(new URL(path, base), { headers: { "x-supervisor-token": token } }, (res) => {
      contentType = res.headers["content-type"]
      let buf = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        buf += c
        const whole = buf.slice(0, buf.lastIndexOf("\n") + 1)
        buf = buf.slice(whole.length)
        for (const l of whole.split("\n").filter(Boolean)) {
          if (lines.length >= count) break
          lines.push(JSON.parse(l) as Record<string, unknown>)
          onLine(lines.length)
        }
        if (lines.length >= count) {
          clearTimeout(timer)
          req.destroy()
          resolve({ lines, contentType })
        }
      })
    })
    req.on("error", (e) =>
      e.message.includes("aborted") || e.message.includes("socket hang up") ? undefined : reject(e),
    )
    req.end()
  })

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "app",
    `[daemons.web]\nrun = "echo hello; echo 'second line'; exec sleep 300"\nready_delay = 0.2\n\n[daemons.idle]\nrun = "exec sleep 300"\nready_delay = 0.2\n`,
  )
  const started = sb.cli(["supervisor", "start", "--web-port", "0"], dir)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], dir).stdout) as { web_url: string }
  expect(status.web_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  base = status.web_url
  token = sb.cli(["supervisor", "token"], dir).stdout.trim()
  expect(sb.cli(["start", "web", "idle"], dir).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("HTTP API on TCP (e2e)", () => {
  it("the supervisor log announces the URL; the token is 256 bits in a 0600 file", () => {
    const log = readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
    expect(log).toContain(`Web UI listening on ${base}`)
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    const file = join(sb.stateDir, "api-token")
    expect(existsSync(file)).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it(
    "every answer has a Date header of the second it was made, in HTTP's IMF-fixdate",
    async () => {
      const before = Date.now()
      const replies = [await http("GET", "/api/stats"), await http("GET", "/api/daemons", { token: null })]
      const after = Date.now()
      for (const r of replies) {
        const date = String(r.headers.date)
        expect(date).toMatch(
          /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
        )
        expect(new Date(Date.parse(date)).toUTCString()).toBe(date)
        expect(Date.parse(date)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
        expect(Date.parse(date)).toBeLessThanOrEqual(after)
      }
    },
    T,
  )

  it(
    "authentication: no token or a wrong one is 401 with a JSON error; the right one works",
    async () => {
      const none = await http("GET", "/api/daemons", { token: null })
      expect(none.status).toBe(401)
      expect(json(none)).toEqual({
        _tag: "Unauthorized",
        message: "missing X-Supervisor-Token header; `supervisor supervisor token` prints the token",
      })
      const wrong = await http("GET", "/api/daemons", { token: "0".repeat(64) })
      expect(wrong.status).toBe(401)
      expect((json(wrong) as { _tag: string })._tag).toBe("Unauthorized")
      expect((await http("GET", "/api/stats")).status).toBe(200)
    },
    T,
  )

  it(
    "DNS-rebinding protection: a foreign Host header is refused with 403",
    async () => {
      const r = await http("GET", "/api/daemons", { host: "evil.example:80" })
      expect(r.status).toBe(403)
      expect(json(r)).toMatchObject({ _tag: "HostNotAllowed" })
      const port = new URL(base).port
      expect((await http("GET", "/api/stats", { host: `localhost:${port}` })).status).toBe(200)
    },
    T,
  )

  it(
    "GET /api/stats, /api/daemons and /api/daemons/{id} have the spec's fields",
    async () => {
      const stats = json(await http("GET", "/api/stats")) as Record<string, number>
      expect(Object.keys(stats).sort()).toEqual(["cpu_count", "process_count", "total_memory"])
      expect(stats.cpu_count).toBeGreaterThan(0)
      const list = json(await http("GET", "/api/daemons")) as Array<Record<string, unknown>>
      const web = list.find((e) => (e.id as { qualified: string }).qualified === "app/web")
      expect(web).toBeDefined()
      for (const key of [
        "id",
        "title",
        "pid",
        "status",
        "dir",
        "cpu_percent",
        "memory_bytes",
        "uptime_secs",
        "proxy_url",
        "slug",
        "active_port",
        "resolved_port",
      ])
        expect(web, key).toHaveProperty(key)
      expect(web?.id).toEqual({ namespace: "app", name: "web", qualified: "app/web", safe_path: "app--web" })
      expect(web?.status).toMatchObject({ type: "running" })
      expect(web?.memory_bytes as number).toBeGreaterThan(0)
      const one = await http("GET", "/api/daemons/app%2Fweb")
      expect(one.status).toBe(200)
      expect((json(one) as { pid: number }).pid).toBe(web?.pid)
      const missing = await http("GET", "/api/daemons/app%2Fnope")
      expect(missing.status).toBe(404)
      expect(json(missing)).toMatchObject({ _tag: "DaemonNotFound" })
    },
    T,
  )

  it(
    "GET /api/daemons?id=…&usage=false lists only those daemons, without the /proc figures",
    async () => {
      type Entry = { id: { qualified: string }; pid: number | null; memory_bytes: number }
      const all = json(await http("GET", "/api/daemons")) as Array<Entry>
      expect(all.map((e) => e.id.qualified)).toEqual(expect.arrayContaining(["app/web", "app/idle"]))
      expect(all.find((e) => e.id.qualified === "app/web")?.memory_bytes).toBeGreaterThan(0)
      const some = json(
        await http("GET", "/api/daemons?usage=false&id=app%2Fweb&id=app%2Fnope"),
      ) as Array<Entry>
      expect(some.map((e) => e.id.qualified)).toEqual(["app/web"])
      expect(some[0]?.pid).toBe(all.find((e) => e.id.qualified === "app/web")?.pid)
      expect(some[0]?.memory_bytes).toBe(0)
      const comma = json(await http("GET", "/api/daemons?id=app%2Fidle,app%2Fweb")) as Array<Entry>
      expect(comma.map((e) => e.id.qualified)).toEqual(["app/idle", "app/web"])
      // each looked up by its ID, the entry is the one the whole listing has (uptime aside: time passes)
      const byIds = json(
        await http("GET", "/api/daemons?usage=false&id=app%2Fidle,app%2Fweb"),
      ) as Array<Entry>
      const whole = json(await http("GET", "/api/daemons?usage=false")) as Array<Entry>
      for (const e of byIds)
        expect({ ...e, uptime_secs: 0 }).toEqual({
          ...whole.find((w) => w.id.qualified === e.id.qualified),
          uptime_secs: 0,
        })
      expect((await http("GET", "/api/daemons?usage=maybe")).status).toBe(400)
    },
    T,
  )

  it(
    "an ID that is not ONE url-encoded segment is 400 with a JSON error",
    async () => {
      for (const path of ["/api/daemons/app/web", "/api/daemons/app/web/start", "/api/logs/app/web/tail"]) {
        const r = await http(path.endsWith("start") ? "POST" : "GET", path)
        expect(r.status, path).toBe(400)
        expect(json(r), path).toMatchObject({ _tag: "BadDaemonId" })
        expect((json(r) as { message: string }).message).toContain("app%2Fweb")
      }
    },
    T,
  )

  it(
    "control routes: stop, start, restart, disable, enable return {ok}; a business failure is 200 with ok false",
    async () => {
      const post = async (action: string, id = "app%2Fidle") => {
        const r = await http("POST", `/api/daemons/${id}/${action}`)
        expect(r.status, action).toBe(200)
        return json(r) as { ok: boolean; error?: string }
      }
      // The supervisor knows the daemons the CLI started (and those of registered namespaces).
      expect(await post("stop")).toEqual({ ok: true })
      expect(await post("start")).toEqual({ ok: true })
      expect(await post("stop")).toEqual({ ok: true })
      expect(await post("disable")).toEqual({ ok: true })
      const refused = await post("start")
      expect(refused.ok).toBe(false)
      expect(refused.error).toMatch(/disabled/)
      expect(await post("enable")).toEqual({ ok: true })
      expect(await post("restart")).toEqual({ ok: true })
      const unknown = await post("start", "app%2Fnope")
      expect(unknown.ok).toBe(false)
      expect(unknown.error).toContain("app/nope")
    },
    T,
  )

  it(
    "GET /api/logs/{id}/tail streams ndjson: the last N entries, then new ones; grep filters",
    async () => {
      const { lines, contentType } = await tail("/api/logs/app%2Fweb/tail?lines=5", 2)
      expect(contentType).toContain("application/x-ndjson")
      expect(lines.map((l) => l.message)).toEqual(["hello", "second line"])
      expect(Object.keys(lines[0] ?? {}).sort()).toEqual(["daemon_id", "id", "message", "timestamp"])
      expect(lines[0]?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const filtered = await tail("/api/logs/app%2Fweb/tail?lines=5&grep=SECOND", 1)
      expect(filtered.lines.map((l) => l.message)).toEqual(["second line"])
      const bad = await http("GET", "/api/logs/app%2Fweb/tail?since=yesterday-ish")
      expect(bad.status).toBe(400)
      expect(json(bad)).toMatchObject({ _tag: "BadRequest" })
    },
    T,
  )

  it(
    "GET /api/logs/{id}/tail of a configured daemon that never ran follows it: its lines come once it starts",
    async () => {
      const file = join(dir, "supervisor.toml")
      writeFileSync(
        file,
        `${readFileSync(file, "utf8")}\n[daemons.later]\nrun = "while :; do echo tick; sleep 0.2; done"\nready_delay = 0\n`,
      )
      await waitFor(
        "the new daemon listed",
        async () => (await http("GET", "/api/daemons/app%2Flater")).status === 200,
      )
      const first = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no line of the daemon within 10 s")), 10_000)
        const req = request(
          new URL("/api/logs/app%2Flater/tail?lines=0", base),
          { headers: { "x-supervisor-token": token } },
          (res) => {
            if (res.statusCode !== 200) {
              clearTimeout(timer)
              return reject(new Error(`status ${res.statusCode}`))
            }
            // the tail is open on a daemon that never ran: now it starts
            expect(sb.cli(["start", "later"], dir).status).toBe(0)
            res.setEncoding("utf8").on("data", (c: string) => {
              clearTimeout(timer)
              req.destroy()
              resolve(c.split("\n")[0]!)
            })
          },
        )
        req.on("error", () => undefined)
        req.end()
      })
      expect(JSON.parse(first)).toMatchObject({ daemon_id: "app/later", message: "tick" })
      expect(sb.cli(["stop", "later"], dir).status).toBe(0)
    },
    T,
  )

  it(
    "the tail's grep matches new lines as they look, colour codes and case aside, like the stored ones",
    async () => {
      // An ad-hoc daemon that prints "ERROR <n>" with the R in red each time a file appears.
      const script = `i=0; while :; do if [ -f go ]; then rm go; i=$((i+1)); printf '\\033[31mER\\033[0mROR %s\\n' $i; fi; sleep 0.05; done`
      const ran = sb.cli(["run", "--delay", "0", "colour", "--", "sh", "-c", script], dir)
      expect(ran.status, ran.stderr).toBe(0)
      writeFileSync(join(dir, "go"), "")
      await waitFor("the first line to be stored", () =>
        sb.cli(["logs", "colour", "--raw", "--no-timestamp"], dir).stdout.includes("ERROR 1"),
      )
      // the stored line comes first; then a new one is made, which must come through the filter too
      const { lines } = await tail("/api/logs/app%2Fcolour/tail?lines=5&grep=error", 2, (got) => {
        if (got === 1) writeFileSync(join(dir, "go"), "")
      })
      expect(lines.map((l) => l.message)).toEqual([
        "\u001b[31mER\u001b[0mROR 1",
        "\u001b[31mER\u001b[0mROR 2",
      ])
      expect(sb.cli(["stop", "colour"], dir).status).toBe(0)
    },
    T,
  )

  it(
    "a filtered tail (grep, since) also gets the clear notice when the log is cleared",
    async () => {
      const ran = sb.cli(
        ["run", "--delay", "0", "wiped", "--", "sh", "-c", "echo keep me; echo drop me; exec sleep 600"],
        dir,
      )
      expect(ran.status, ran.stderr).toBe(0)
      await waitFor("both lines to be stored", () =>
        sb.cli(["logs", "wiped", "--raw", "--no-timestamp"], dir).stdout.includes("drop me"),
      )
      const cases: Array<[string, Array<string>]> = [
        ["grep=keep", ["keep me"]],
        // after the restart below: the supervisor's line about it, then the new run's lines
        [`since=${encodeURIComponent("10min")}`, ["[supervisor] restarting: manual", "keep me", "drop me"]],
      ]
      for (const [filter, stored] of cases) {
        // once the stored lines have come, clear: the notice must pass the filter
        const { lines } = await tail(
          `/api/logs/app%2Fwiped/tail?lines=5&${filter}`,
          stored.length + 1,
          (got) => {
            if (got === stored.length) expect(sb.cli(["logs", "wiped", "--clear"], dir).status).toBe(0)
          },
        )
        expect(
          lines.slice(0, stored.length).map((l) => l.message),
          filter,
        ).toEqual(stored)
        expect(lines[stored.length], filter).toEqual({ _clear: true, _gen: expect.any(Number) })
        // the second case needs lines again
        if (filter.startsWith("grep")) {
          const again = sb.cli(["restart", "wiped"], dir)
          expect(again.status, again.stderr).toBe(0)
          await waitFor("both lines to be stored again", () =>
            sb.cli(["logs", "wiped", "--raw", "--no-timestamp"], dir).stdout.includes("drop me"),
          )
        }
      }
      expect(sb.cli(["stop", "wiped"], dir).status).toBe(0)
    },
    T,
  )

  it(
    "namespaces: register a project dir, list it, delete it; proxies list; process tree",
    async () => {
      const reg = await http("POST", "/api/namespaces", { body: { dir } })
      expect(reg.status).toBe(200)
      expect(json(reg)).toEqual({ ok: true, namespace: { name: "app", dir } })
      const list = json(await http("GET", "/api/namespaces")) as Array<Record<string, unknown>>
      expect(list.find((n) => n.name === "app")).toMatchObject({ name: "app", dir, registered: true })
      const bad = json(await http("POST", "/api/namespaces", { body: { dir: sb.dir("empty") } }))
      expect(bad).toMatchObject({ ok: false })
      expect(json(await http("DELETE", "/api/namespaces/app"))).toEqual({
        ok: true,
        namespace: { name: "app", dir },
      })
      expect(json(await http("DELETE", "/api/namespaces/app"))).toMatchObject({ ok: false })
      expect(json(await http("GET", "/api/proxies"))).toEqual([])
      const tree = json(await http("GET", "/api/processes/app%2Fweb/tree")) as Array<Record<string, unknown>>
      expect(tree).toHaveLength(1)
      for (const key of [
        "pid",
        "name",
        "exe",
        "cpu_percent",
        "memory_bytes",
        "virtual_memory_bytes",
        "uptime_secs",
        "thread_count",
        "status",
        "children",
      ])
        expect(tree[0], key).toHaveProperty(key)
      expect(tree[0]?.name).toBe("sleep")
    },
    T,
  )

  it(
    "a registered namespace's daemons are listed before they ever ran, and start from their current definition with their dependencies",
    async () => {
      const proj = sb.project(
        "reg",
        `[daemons.db]\nrun = "exec sleep 301"\nready_delay = 0\n\n[daemons.worker]\nrun = "exec sleep 302"\ndepends = ["db"]\nready_delay = 0\n\n[daemons.spare]\nrun = "exec sleep 304"\n`,
      )
      const entries = async () => json(await http("GET", "/api/daemons")) as Array<Record<string, unknown>>
      const status = async (id: string) =>
        ((await entries()).find((e) => (e.id as { qualified: string }).qualified === id)?.status as {
          type: string
        }) ?? null
      expect(await status("reg/worker")).toBeNull() // not registered yet: the supervisor has not seen it
      expect(json(await http("POST", "/api/namespaces", { body: { dir: proj } }))).toMatchObject({ ok: true })
      expect(await status("reg/worker")).toEqual({ type: "available" })
      expect(await status("reg/db")).toEqual({ type: "available" })

      expect(json(await http("POST", "/api/daemons/reg%2Fworker/start"))).toEqual({ ok: true })
      expect(await status("reg/db")).toMatchObject({ type: "running" }) // its dependency, started first
      expect(await status("reg/worker")).toMatchObject({ type: "running" })
      const pidOf = async (id: string) =>
        (await entries()).find((e) => (e.id as { qualified: string }).qualified === id)?.pid
      const dbPid = await pidOf("reg/db")
      expect(dbPid).toEqual(expect.any(Number))

      // edited on disk: a restart through the API takes the new definition
      writeFileSync(
        join(proj, "supervisor.toml"),
        `[daemons.db]\nrun = "exec sleep 301"\nready_delay = 0\n\n[daemons.worker]\nrun = "exec sleep 3030"\ndepends = ["db"]\nready_delay = 0\n\n[daemons.spare]\nrun = "exec sleep 304"\n`,
      )
      expect(json(await http("POST", "/api/daemons/reg%2Fworker/restart"))).toEqual({ ok: true })
      const worker = (await entries()).find((e) => (e.id as { qualified: string }).qualified === "reg/worker")
      expect(worker).toMatchObject({ run: "exec sleep 3030", status: { type: "running" } })
      expect(await pidOf("reg/db")).toBe(dbPid) // a running dependency is left alone
      expect(await status("reg/spare")).toEqual({ type: "available" })
      // a never-run daemon has an entry of its own and can be disabled and enabled
      const spare = await http("GET", "/api/daemons/reg%2Fspare")
      expect(spare.status).toBe(200)
      expect(json(spare)).toMatchObject({ status: { type: "available" }, run: "exec sleep 304" })
      expect(json(await http("POST", "/api/daemons/reg%2Fspare/disable"))).toEqual({ ok: true })
      expect(await status("reg/spare")).toEqual({ type: "disabled" })
      expect(json(await http("POST", "/api/daemons/reg%2Fspare/start"))).toMatchObject({ ok: false })
      expect(json(await http("POST", "/api/daemons/reg%2Fspare/enable"))).toEqual({ ok: true })
      expect(await status("reg/spare")).toEqual({ type: "available" })
      // a namespace named like an Object property is just unknown
      expect(json(await http("POST", "/api/daemons/constructor%2Fx/start"))).toMatchObject({ ok: false })

      // a broken configuration: the last good one stays in force (docs/registry.md): a daemon
      // that ran restarts from it, a never-run one is still listed and starts from it
      writeFileSync(join(proj, "supervisor.toml"), "[daemons.worker]\nrun = 3\n")
      expect(json(await http("POST", "/api/daemons/reg%2Fworker/restart"))).toEqual({ ok: true })
      expect(
        (await entries()).find((e) => (e.id as { qualified: string }).qualified === "reg/worker"),
      ).toMatchObject({
        run: "exec sleep 3030",
        status: { type: "running" },
      })
      expect(await status("reg/spare")).toEqual({ type: "available" })
      expect(json(await http("POST", "/api/daemons/reg%2Fspare/start"))).toEqual({ ok: true })
      expect(
        (await entries()).find((e) => (e.id as { qualified: string }).qualified === "reg/spare"),
      ).toMatchObject({ run: "exec sleep 304", status: { type: "running" } })

      for (const id of ["reg%2Fworker", "reg%2Fdb", "reg%2Fspare"])
        expect(json(await http("POST", `/api/daemons/${id}/stop`))).toEqual({ ok: true })
      expect(json(await http("DELETE", "/api/namespaces/reg"))).toMatchObject({ ok: true })
    },
    T,
  )

  it(
    "a daemon configured where a CLI ran a command starts, restarts, enables and disables over the API before it ever ran",
    async () => {
      const stack = `[daemons.db]\nrun = "exec sleep 311"\nready_delay = 0\n\n[daemons.api]\nrun = "exec sleep 312"\ndepends = ["db"]\nready_delay = 0\n`
      sb.project("unseen", stack)
      const viaList = sb.project("vialist", stack)
      const viaStatus = sb.project("viastatus", stack)
      const get = async (id: string) => {
        const r = await http("GET", `/api/daemons/${encodeURIComponent(id)}`)
        return { status: r.status, body: json(r) as Record<string, unknown> }
      }
      // no CLI ran in `unseen`: its daemons are not known
      expect(json(await http("POST", "/api/daemons/unseen%2Fapi/start"))).toMatchObject({ ok: false })
      expect((await get("unseen/api")).status).toBe(404)
      // `list` (the quick client) and `status` (the full CLI) make their project known
      expect(sb.cli(["list"], viaList).status).toBe(0)
      sb.cli(["status", "api"], viaStatus)
      for (const ns of ["vialist", "viastatus"]) {
        const never = await get(`${ns}/api`)
        expect(never.status).toBe(200)
        expect(never.body).toMatchObject({ status: { type: "available" }, run: "exec sleep 312" })
        expect(json(await http("POST", `/api/daemons/${ns}%2Fapi/disable`))).toEqual({ ok: true })
        expect(json(await http("POST", `/api/daemons/${ns}%2Fapi/start`))).toMatchObject({ ok: false })
        expect(json(await http("POST", `/api/daemons/${ns}%2Fapi/enable`))).toEqual({ ok: true })
        expect(json(await http("POST", `/api/daemons/${ns}%2Fapi/start`))).toEqual({ ok: true })
        // with its dependency, started first
        expect((await get(`${ns}/db`)).body).toMatchObject({ status: { type: "running" } })
        const started = (await get(`${ns}/api`)).body
        expect(started).toMatchObject({ status: { type: "running" }, pid: expect.any(Number) })
        expect(json(await http("POST", `/api/daemons/${ns}%2Fapi/restart`))).toEqual({ ok: true })
        const restarted = (await get(`${ns}/api`)).body
        expect(restarted).toMatchObject({ status: { type: "running" } })
        expect(restarted.pid).not.toBe(started.pid)
        for (const id of [`${ns}%2Fapi`, `${ns}%2Fdb`])
          expect(json(await http("POST", `/api/daemons/${id}/stop`))).toEqual({ ok: true })
      }
    },
    T,
  )

  it(
    "GET /api/openapi.json describes the routes; of /api/cli only the remote CLI's routes are served over TCP",
    async () => {
      const doc = json(await http("GET", "/api/openapi.json")) as {
        openapi: string
        paths: Record<string, unknown>
      }
      expect(doc.openapi).toMatch(/^3\./)
      expect(Object.keys(doc.paths)).toContain("/api/daemons/{id}/start")
      expect(Object.keys(doc.paths).some((p) => p.startsWith("/api/cli/"))).toBe(false)
      // the remote CLI's version check and log queries (docs/remote.md), with the token
      expect((await http("GET", "/api/cli/supervisor")).status).toBe(200)
      expect((await http("GET", "/api/cli/supervisor", { token: "wrong" })).status).toBe(401)
      // never a start with the caller's definitions, an ad-hoc run or a shutdown
      for (const path of [
        "/api/cli/start",
        "/api/cli/start/stream",
        "/api/cli/start-from",
        "/api/cli/supervisor/stop",
      ])
        expect((await http("POST", path, { body: {} })).status).toBe(404)
    },
    T,
  )

  it(
    "supervisor web prints a one-time login link: it sets an HttpOnly SameSite=Strict session cookie once",
    async () => {
      const r = sb.cli(["web"], dir)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stderr).not.toMatch(STACK_LINE)
      const link = new URL(r.stdout.trim())
      expect(link.origin).toBe(base)
      const first = await http("GET", `${link.pathname}${link.search}`, { token: null })
      expect(first.status).toBe(303)
      const cookie = String(first.headers["set-cookie"])
      expect(cookie).toMatch(/supervisor_session=[^;]+; .*HttpOnly/i)
      expect(cookie).toMatch(/SameSite=Strict/i)
      const session = cookie.split(";")[0] ?? ""
      expect((await http("GET", "/api/daemons", { token: null, cookie: session })).status).toBe(200)
      const again = await http("GET", `${link.pathname}${link.search}`, { token: null })
      expect(again.status).toBe(401)
      const page = await http("GET", "/", { token: null })
      expect(page.status).toBe(200)
      expect(page.body).not.toContain(token)
    },
    T,
  )

  it(
    "the exported typed client (dist/client.mjs, package export supervisor/client) lists and controls daemons",
    async () => {
      const client = (await import(
        join(__dirname, "../../dist/client.mjs")
      )) as typeof import("../../src/client/index.js")
      const { Effect } = await import("effect")
      const { FetchHttpClient } = await import("@effect/platform")
      const program = Effect.gen(function* () {
        const api = yield* client.makeSupervisorClient({ baseUrl: base, token })
        const list = yield* api.daemons.list({ urlParams: {} })
        const stop = yield* api.daemons.stop({ path: { id: "app/idle" } })
        const start = yield* api.daemons.start({ path: { id: "app/idle" } })
        const one = yield* api.daemons.get({ path: { id: "app/idle" } })
        return { ids: list.map((e) => e.id.qualified), stop, start, status: one.status.type }
      })
      const r = await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
      expect(r.ids).toEqual(expect.arrayContaining(["app/web", "app/idle"]))
      expect(r.stop).toEqual({ ok: true })
      expect(r.start).toEqual({ ok: true })
      expect(r.status).toBe("running")
      const wrong = client.makeSupervisorClient({ baseUrl: base, token: "nope" })
      const denied = await Effect.runPromise(
        wrong.pipe(
          Effect.flatMap((api) => api.daemons.list({ urlParams: {} })),
          Effect.either,
          Effect.provide(FetchHttpClient.layer),
        ),
      )
      expect(denied._tag).toBe("Left")
    },
    T,
  )

  it(
    "a busy web port moves on to the next one; the API-only listener serves /api but no page",
    async () => {
      const other = makeDaemonSandbox()
      const held = createServer()
      try {
        const port = await freePort()
        await new Promise<void>((resolve) => held.listen(port, "127.0.0.1", resolve))
        const env = {
          ...other.env,
          SUPERVISOR_WEB_PORT: String(port),
          SUPERVISOR_API_AUTO_START: "true",
          SUPERVISOR_API_BIND_PORT: "0",
        }
        expect((await other.cliAsync(["supervisor", "start"], other.root, env)).status).toBe(0)
        const status = JSON.parse(other.cli(["supervisor", "status", "--json"], other.root, env).stdout) as {
          web_url: string
          api_url: string
        }
        expect(Number(new URL(status.web_url).port)).toBeGreaterThan(port)
        expect(Number(new URL(status.web_url).port)).toBeLessThan(port + 10)
        const apiToken = other.cli(["supervisor", "token"], other.root, env).stdout.trim()
        const get = (url: string, withToken: boolean) =>
          new Promise<number>((resolve, reject) => {
            const req = request(
              url,
              { headers: withToken ? { "x-supervisor-token": apiToken } : {} },
              (res) => {
                res.resume()
                resolve(res.statusCode ?? 0)
              },
            )
            req.on("error", reject)
            req.end()
          })
        expect(await get(`${status.api_url}/api/stats`, true)).toBe(200)
        expect(await get(`${status.api_url}/api/stats`, false)).toBe(401)
        expect(await get(`${status.api_url}/`, false)).toBe(404)
        expect(await get(`${status.web_url}/`, false)).toBe(200)
      } finally {
        held.close()
        other.destroy()
      }
    },
    T,
  )

  it(
    "binding a non-loopback address without web.allow_non_loopback is refused with a clear error",
    async () => {
      const other = makeDaemonSandbox()
      try {
        const env = { ...other.env, SUPERVISOR_WEB_BIND_ADDRESS: "0.0.0.0", SUPERVISOR_WEB_PORT: "0" }
        const r = other.cli(["supervisor", "run"], other.root, env)
        expect(r.status).toBe(1)
        expect(r.stderr).toContain('settings.web.bind_address = "0.0.0.0" is not a loopback address')
        expect(r.stderr).toContain("set settings.web.allow_non_loopback = true")
        const allowed = other.cliAsync(["supervisor", "start"], other.root, {
          ...env,
          SUPERVISOR_WEB_ALLOW_NON_LOOPBACK: "true",
        })
        expect((await allowed).status).toBe(0)
        const log = await waitFor("the warning", () => {
          const text = readFileSync(join(other.stateDir, "logs", "supervisor.log"), "utf8")
          return text.includes("serves plain HTTP") ? text : undefined
        })
        expect(log).toContain("anyone who can observe the traffic can capture and reuse it")
      } finally {
        other.destroy()
      }
    },
    T,
  )
})
