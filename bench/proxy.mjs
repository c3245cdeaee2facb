// The reverse proxy's throughput and latency, side by side in one run: the same small-response
// HTTP server measured directly, through the supervisor's proxy (plain HTTP), and through a plain
// `http-proxy`-based Node proxy (the peer). Load: autocannon, keep-alive, 50 connections.
// Usage: node bench/proxy.mjs [--duration 5] [--rounds 3] [--connections 50] [--json FILE]
//          [--peer-flags none|supervisor]
// (build first: npm run build)
//
// Everything runs in a temp dir with its own HOME, config dirs and SUPERVISOR_STATE_DIR; the
// supervisor, its daemon and the peer are stopped at the end, also on error or Ctrl-C. Each round
// measures the three targets in a rotated order after a 1 s warm-up each; the table shows the
// medians over the rounds. Targets: at least 70% of the direct throughput and at most 2 ms of
// added p99.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)
const autocannon = require("autocannon")
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const BIN = join(repo, "dist", "supervisor.cjs")

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const duration = Number(opt("duration", "5"))
const rounds = Number(opt("rounds", "3"))
const connections = Number(opt("connections", "50"))
const jsonOut = opt("json", undefined)
// `--peer-flags supervisor`: the peer runs with the supervisor's own Node flags (src/host/nodeFlags.ts)
const SUPERVISOR_FLAGS = ["--max-semi-space-size=1", "--heap-growing-percent=60", "--v8-pool-size=1"]
const peerFlags = opt("peer-flags", "none") === "supervisor" ? SUPERVISOR_FLAGS : []

const freePort = () =>
  new Promise((res, rej) => {
    const s = net.createServer()
    s.on("error", rej)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => res(port))
    })
  })

const root = mkdtempSync(join(os.tmpdir(), "sv-bench-proxy-"))
const home = join(root, "home")
const project = join(root, "target")
mkdirSync(join(home, ".config", "supervisor"), { recursive: true })
mkdirSync(project, { recursive: true })
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  SUPERVISOR_CONFIG_DIR: join(home, ".config", "supervisor"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
  NO_COLOR: "1",
}
const cli = (...argv) => spawnSync(process.execPath, [BIN, ...argv], { cwd: project, env, encoding: "utf8" })

let peer
const cleanup = () => {
  peer?.kill("SIGKILL")
  cli("supervisor", "stop")
  rmSync(root, { recursive: true, force: true })
}
process.on("SIGINT", () => {
  cleanup()
  process.exit(130)
})

const main = async () => {
  const [targetPort, proxyPort, peerPort] = [await freePort(), await freePort(), await freePort()]
  writeFileSync(
    join(project, "server.cjs"),
    `require("node:http").createServer((req, res) => res.end("ok")).listen(${targetPort}, "127.0.0.1", () => console.log("up"))\n`,
  )
  writeFileSync(
    join(project, "supervisor.toml"),
    `[daemons.web]\nrun = "exec node server.cjs"\nready_output = "up"\n`,
  )
  writeFileSync(
    join(home, ".config", "supervisor", "config.toml"),
    `[slugs]\nbench = { dir = "${project}", daemon = "web" }\n\n[settings.proxy]\nenable = true\nhttps = false\nport = ${proxyPort}\n`,
  )
  const started = cli("supervisor", "start")
  if (started.status !== 0) throw new Error(`supervisor start failed: ${started.stderr}`)
  const daemon = cli("start", "web")
  if (daemon.status !== 0) throw new Error(`start web failed: ${daemon.stderr}`)
  // the peer: a plain http-proxy server in its own process, as the supervisor's proxy is
  const peerScript = `
    const http = require("node:http")
    const proxy = require("http-proxy").createProxyServer({ target: "http://127.0.0.1:${targetPort}", agent: new http.Agent({ keepAlive: true, maxSockets: Infinity }), xfwd: true })
    proxy.on("error", (e, req, res) => { res.writeHead(502); res.end() })
    http.createServer((req, res) => proxy.web(req, res)).listen(${peerPort}, "127.0.0.1", () => console.log("up"))
  `
  peer = spawn(process.execPath, [...peerFlags, "-e", peerScript], {
    cwd: repo,
    stdio: ["ignore", "pipe", "inherit"],
  })
  await new Promise((res) => peer.stdout.once("data", res))

  const targets = [
    { name: "direct", url: `http://127.0.0.1:${targetPort}/`, host: `127.0.0.1:${targetPort}` },
    { name: "supervisor proxy", url: `http://127.0.0.1:${proxyPort}/`, host: `bench.localhost:${proxyPort}` },
    { name: "http-proxy (peer)", url: `http://127.0.0.1:${peerPort}/`, host: `127.0.0.1:${peerPort}` },
  ]
  const load = (t, seconds) =>
    autocannon({ url: t.url, connections, duration: seconds, headers: { host: t.host } })
  const samples = new Map(targets.map((t) => [t.name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length])
    for (const t of order) {
      await load(t, 1)
      const r = await load(t, duration)
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`)
      samples.get(t.name).push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 })
      process.stderr.write(
        `round ${round + 1} ${t.name}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms\n`,
      )
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const row = (name) => {
    const s = samples.get(name)
    return {
      rps: median(s.map((x) => x.rps)),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
    }
  }
  const direct = row("direct")
  console.log(
    `\n${new Date().toISOString()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${os.loadavg()[0].toFixed(2)}, node ${process.version}`,
  )
  console.log(
    `autocannon: ${connections} connections, keep-alive, ${duration} s x ${rounds} rounds, 2-byte responses; peer flags: ${peerFlags.join(" ") || "none"}\n`,
  )
  console.log("| target | req/s (median) | % of direct | p50 ms | p99 ms | added p99 ms |")
  console.log("|---|---|---|---|---|---|")
  const out = {}
  for (const t of targets) {
    const r = row(t.name)
    out[t.name] = { ...r, samples: samples.get(t.name) }
    console.log(
      `| ${t.name} | ${Math.round(r.rps)} | ${Math.round((r.rps / direct.rps) * 100)}% | ${r.p50} | ${r.p99} | ${t.name === "direct" ? "" : r.p99 - direct.p99} |`,
    )
  }
  if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify(out, null, 2))
}

main()
  .catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
  .finally(cleanup)
