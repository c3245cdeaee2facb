/**
 * A project and its git worktree side by side under one supervisor (docs/worktrees.md): the same
 * stack (a web daemon with a port and a slug, a worker depending on it) started in both at once,
 * both ready on distinct ports, each reachable through the proxy by its own host name; then the
 * worktree removed with `git worktree remove` and `supervisor worktree prune --yes` forgetting its
 * namespace and stopping its daemons; a worktree no command ran in is found and started by its
 * host name.
 */
import { execFile } from "node:child_process"
import * as http from "node:http"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterEach, describe, expect, it } from "vitest"
import {
  apiGet,
  BIN,
  type DaemonEntry,
  type DaemonSandbox,
  daemonPids,
  freePort,
  makeDaemonSandbox,
  onTerminal,
  proxyUserConfig,
  storedLogs,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 120_000
const run = promisify(execFile)

let sb: DaemonSandbox
afterEach(() => sb?.destroy())

// The web daemon answers with the directory it runs in and the port it was given.
const WEB_JS = `
const http = require("node:http")
const port = Number(process.env.PORT)
http
  .createServer((req, res) => res.end(JSON.stringify({ dir: process.cwd(), port })))
  .listen(port, "127.0.0.1", () => console.log("listening on " + port))
`
// The worker asks the web daemon it depends on, at the port its template gave it, then stays.
const WORKER_JS = `
const http = require("node:http")
http.get("http://127.0.0.1:" + process.env.WEB_PORT + "/", (res) => {
  let body = ""
  res.on("data", (d) => (body += d))
  res.on("end", () => console.log("worker connected to " + process.env.WEB_PORT + " " + body))
})
setInterval(() => {}, 1000)
`

interface Entry extends DaemonEntry {
  readonly worktree?: { readonly name: string; readonly kind: string; readonly main: string | null }
  readonly proxy_url: string | null
}
interface Namespace {
  readonly name: string
  readonly dir: string | null
  readonly gone: boolean
  readonly worktree: string | null
}

const through = (proxyPort: number, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: proxyPort, path: "/", agent: false, headers: { host } },
      (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on("error", reject)
    req.end()
  })

/**
 * The sandbox's `shop` project with `toml` and the web daemon's script (and `files`), slug `shop`
 * for its web daemon on the plain-HTTP proxy at `proxyPort`, committed to a git repository;
 * `git` runs git in the sandbox's environment.
 */
const gitProject = async (proxyPort: number, toml: Array<string>, files: Record<string, string> = {}) => {
  const shop = sb.project("shop", [...toml, ""].join("\n"))
  sb.write({
    "shop/web.cjs": WEB_JS,
    ...files,
    "home/.config/supervisor/config.toml": proxyUserConfig(proxyPort, { shop: { dir: shop, daemon: "web" } }),
  })
  const git = (cwd: string, ...args: Array<string>) =>
    run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, env: sb.env })
  await git(shop, "init", "-q", "-b", "main")
  await git(shop, "add", ".")
  await git(shop, "commit", "-q", "-m", "the stack")
  return { shop, git }
}

/** A new sandbox whose git project `shop` has one web daemon (a port, ready on its output) with `more` keys. */
const webStack = async (more: Array<string> = []) => {
  sb = makeDaemonSandbox()
  const proxyPort = await freePort()
  const webPort = await freePort()
  const project = await gitProject(proxyPort, [
    "[daemons.web]",
    'run = "exec node web.cjs"',
    `port = { expect = [${webPort}], bump = 20 }`,
    ...more,
    'ready_output = "listening"',
  ])
  return { ...project, proxyPort, webPort }
}

describe("worktrees side by side (e2e)", () => {
  it(
    "runs the same stack in a repository and its worktree at once, routes each by host name, and prunes the removed worktree",
    async () => {
      sb = makeDaemonSandbox()
      const proxyPort = await freePort()
      const webPort = await freePort()
      const { shop, git } = await gitProject(
        proxyPort,
        [
          "[daemons.web]",
          'run = "exec node web.cjs"',
          `port = ${webPort}`,
          'ready_output = "listening"',
          "[daemons.worker]",
          'run = "exec node worker.cjs"',
          'depends = ["web"]',
          'env = { WEB_PORT = "{{ daemons.web.port }}" }',
          'ready_output = "worker connected"',
        ],
        { "shop/worker.cjs": WORKER_JS },
      )
      const tree = join(sb.root, "trees", "feature-x")
      await git(shop, "worktree", "add", "-q", "-b", "feature-x", tree)

      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      // both checkouts at once, one supervisor
      const [main, side] = await Promise.all([
        sb.cliAsync(["start", "worker"], shop),
        sb.cliAsync(["start", "worker"], tree),
      ])
      expect(main.status, main.stderr).toBe(0)
      expect(side.status, side.stderr).toBe(0)

      const ids = ["shop/web", "shop/worker", "shop.feature-x/web", "shop.feature-x/worker"]
      const entries = await waitFor("all four daemons running", async () => {
        const all = (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")) ?? []
        const found = ids.map((id) => all.find((e) => e.id.qualified === id))
        return found.every((e) => e?.status.type === "running") ? (found as Array<Entry>) : undefined
      })
      const [web, worker, treeWeb, treeWorker] = entries as [Entry, Entry, Entry, Entry]
      expect(web.worktree).toBeUndefined()
      expect(treeWeb.worktree).toEqual({ name: "feature-x", kind: "git", main: shop })
      expect(treeWorker.worktree?.name).toBe("feature-x")
      // distinct ports: the main checkout's as declared, the worktree's moved by its offset
      expect(web.resolved_port).toEqual([webPort])
      const treePort = treeWeb.resolved_port[0]!
      expect(treePort).not.toBe(webPort)
      expect(worker.resolved_port).toEqual([])
      // each worker reached its own web daemon through the port its template saw
      const connected = async (id: string) =>
        (await storedLogs(sb.stateDir, id)).find((l) => l.message.startsWith("worker connected"))?.message
      expect(await connected("shop/worker")).toContain(`worker connected to ${webPort} `)
      expect(await connected("shop.feature-x/worker")).toContain(`worker connected to ${treePort} `)
      expect(await connected("shop.feature-x/worker")).toContain(JSON.stringify(tree))
      expect(treeWeb.proxy_url).toBe(`http://feature-x.shop.localhost:${proxyPort}`)
      expect(web.proxy_url).toBe(`http://shop.localhost:${proxyPort}`)

      // the proxy: each checkout by its own host name
      const viaMain = await through(proxyPort, "shop.localhost")
      expect(viaMain.status, viaMain.body).toBe(200)
      expect(JSON.parse(viaMain.body)).toEqual({ dir: shop, port: webPort })
      const viaTree = await through(proxyPort, `feature-x.shop.localhost:${proxyPort}`)
      expect(viaTree.status, viaTree.body).toBe(200)
      expect(JSON.parse(viaTree.body)).toEqual({ dir: tree, port: treePort })

      // `list` says which worktree a daemon belongs to
      const listed = sb.cli(["list"], shop, { ...sb.env, COLUMNS: "200" })
      expect(listed.status, listed.stderr).toBe(0)
      expect(tableRow(listed.stdout, "shop.feature-x/web")?.[1]).toBe("feature-x")
      expect(tableRow(listed.stdout, "shop/web")?.[1]).toBe("-")

      // the worktree removed: the supervisor notices its directory is gone ...
      const treePids = daemonPids(sb.stateDir, "shop.feature-x/web")
      expect(treePids.length).toBeGreaterThan(0)
      await git(shop, "worktree", "remove", "--force", tree)
      const gone = await waitFor(
        "the worktree's namespace marked gone",
        async () =>
          (await apiGet<Array<Namespace>>(sb.stateDir, "/api/namespaces"))?.find(
            (n) => n.name === "shop.feature-x" && n.gone,
          ),
        { timeout: 30_000 },
      )
      expect(gone).toMatchObject({ dir: tree, worktree: "feature-x" })
      // on a terminal, prune lists what it would do and asks: "n" leaves everything as it is
      const asked = onTerminal([process.execPath, BIN, "worktree", "prune"], {
        cwd: shop,
        env: sb.env,
        typing: true,
      })
      await waitFor("the question", () => asked.output().includes("[y/N]") || undefined, { timeout: 30_000 })
      asked.type("n\r")
      expect(await asked.exited).toBe(0)
      expect(asked.output()).toContain("shop.feature-x (worktree feature-x)")
      expect(asked.output()).toContain("shop.feature-x/web (running: stopped)")
      expect(asked.output()).toContain("Stop its daemons and forget this namespace? [y/N]")
      expect(asked.output()).toContain("nothing pruned")
      expect(daemonPids(sb.stateDir, "shop.feature-x/web").sort()).toEqual([...treePids].sort())
      // ... and `worktree prune --yes` stops its daemons and forgets its namespace
      const pruned = sb.cli(["worktree", "prune", "--yes", "--json"], shop)
      expect(pruned.status, pruned.stderr).toBe(0)
      const result = JSON.parse(pruned.stdout) as {
        namespaces: Array<{ name: string; dir: string; worktree: string | null }>
        stopped: Array<string>
        removed: Array<string>
      }
      expect(result.namespaces).toEqual([{ name: "shop.feature-x", dir: tree, worktree: "feature-x" }])
      expect([...result.stopped].sort()).toEqual(["shop.feature-x/web", "shop.feature-x/worker"])
      expect([...result.removed].sort()).toEqual(["shop.feature-x/web", "shop.feature-x/worker"])
      const namespaces = (await apiGet<Array<Namespace>>(sb.stateDir, "/api/namespaces")) ?? []
      expect(namespaces.map((n) => n.name)).not.toContain("shop.feature-x")
      const after = (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")) ?? []
      expect(after.filter((e) => e.id.namespace === "shop.feature-x")).toEqual([])
      expect(daemonPids(sb.stateDir, "shop.feature-x/web")).toEqual([])
      // the main checkout runs on, still served by its host name
      expect(after.find((e) => e.id.qualified === "shop/web")?.status.type).toBe("running")
      expect((await through(proxyPort, "shop.localhost")).status).toBe(200)
      // a worktree no command ran in: found from the repository's .git/worktrees and started on request
      const other = join(sb.root, "trees", "Feature Y")
      await git(shop, "worktree", "add", "-q", "-b", "feature-y", other)
      const viaOther = await through(proxyPort, "feature-y.shop.localhost")
      expect(viaOther.status, viaOther.body).toBe(200)
      expect(JSON.parse(viaOther.body)).toMatchObject({ dir: other })
      const started = await waitFor("the other worktree's web daemon running", async () =>
        (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons"))?.find(
          (e) => e.id.qualified === "shop.feature-y/web" && e.status.type === "running",
        ),
      )
      expect(started.resolved_port[0]).not.toBe(webPort)
      expect(started.worktree).toEqual({ name: "feature-y", kind: "git", main: shop })
      // nothing left to prune
      expect(JSON.parse(sb.cli(["worktree", "prune", "--yes", "--json"], shop).stdout)).toEqual({
        namespaces: [],
        stopped: [],
        removed: [],
      })
    },
    T,
  )

  it(
    "a replicated daemon's slug reaches its instances in a worktree too",
    async () => {
      const { shop, git, proxyPort, webPort } = await webStack(["instances = 2"])
      const tree = join(sb.root, "trees", "feature-r")
      await git(shop, "worktree", "add", "-q", "-b", "feature-r", tree)
      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      // the worktree's instances start on the first request for its host name
      const first = await through(proxyPort, "feature-r.shop.localhost")
      expect(first.status, first.body).toBe(200)
      await waitFor("both instances of the worktree running", async () => {
        const all = (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")) ?? []
        const ids = ["shop.feature-r/web.1", "shop.feature-r/web.2"]
        return (
          ids.every((id) => all.find((e) => e.id.qualified === id)?.status.type === "running") || undefined
        )
      })
      const seen = new Set<number>()
      for (let i = 0; i < 4; i++) {
        const reply = await through(proxyPort, "feature-r.shop.localhost")
        expect(reply.status, reply.body).toBe(200)
        const body = JSON.parse(reply.body) as { dir: string; port: number }
        expect(body.dir).toBe(tree)
        seen.add(body.port)
      }
      // both instances served, taken in turn, on ports of the worktree (not the main checkout's)
      expect(seen.size).toBe(2)
      expect(seen.has(webPort)).toBe(false)
    },
    T,
  )

  it(
    "<worktree>.<slug> works as an ID from anywhere, as the host name does: start, status, stop",
    async () => {
      const { shop, git, proxyPort } = await webStack()
      const tree = join(sb.root, "trees", "feature-s")
      await git(shop, "worktree", "add", "-q", "-b", "feature-s", tree)
      // from a directory of no project, before any command ran in the worktree
      const started = await sb.cliAsync(["start", "feature-s.shop"], sb.root)
      expect(started.status, started.stderr).toBe(0)
      expect(started.stdout).toContain("shop.feature-s/web")
      const entry = (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons"))?.find(
        (e) => e.id.qualified === "shop.feature-s/web",
      )
      expect(entry?.status.type).toBe("running")
      expect(entry?.worktree?.name).toBe("feature-s")
      // the main checkout's daemon was not started
      expect(daemonPids(sb.stateDir, "shop/web")).toEqual([])
      const reply = await through(proxyPort, "feature-s.shop.localhost")
      expect(JSON.parse(reply.body)).toMatchObject({ dir: tree })
      const status = sb.cli(["status", "feature-s.shop"], sb.root)
      expect(status.status, status.stderr).toBe(0)
      expect(status.stdout).toContain("shop.feature-s/web")
      const stopped = sb.cli(["stop", "feature-s.shop"], sb.root)
      expect(stopped.status, stopped.stderr).toBe(0)
      expect(daemonPids(sb.stateDir, "shop.feature-s/web")).toEqual([])
      // a label that names no worktree of the slug's project: one line saying so
      const unknown = sb.cli(["start", "nope.shop"], sb.root)
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toContain(
        `nope.shop: no worktree nope of slug shop's project ${shop} configures daemon web`,
      )
    },
    T,
  )
})
