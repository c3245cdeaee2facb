// The reverse proxy's throughput and latency, side by side in one run, over plain HTTP and over
// HTTPS: the same small-response HTTP server measured directly, through the supervisor's proxy,
// through a plain `http-proxy`-based Node proxy (the peer) and, as references of what this
// machine allows, through nginx (when installed: Debian `nginx`; with TLS for the HTTPS section,
// an RSA 2048 certificate as the supervisor's) and a Node pipe that does no HTTP work at all (a
// TCP pipe; a TLS server piping the decrypted bytes for HTTPS).
// Usage: node bench/proxy.mjs [--duration 5] [--rounds 3] [--connections 50] [--tool wrk|autocannon]
//          [--rate 5000] [--scheme both|http|https] [--json FILE] [--peer-flags none|supervisor]
//          [--background 0] [--pairs 10] [--pair-seconds 2]
// (build first: npm run build)
//
// Two phases. Throughput: each target as fast as the load generator can drive it (wrk from Debian
// when installed, else autocannon), keep-alive, 50 connections; requests per second and p99.
// Latency: each target at a fixed `--rate` (autocannon's overallRate, below every target's
// throughput), p50 and p99, so that the added latency is the proxy's own and not queueing on a
// saturated CPU. Everything runs in a temp dir with its own HOME, config dirs and
// SUPERVISOR_STATE_DIR; the supervisor, its daemon and the other proxies are stopped at the end,
// also on error or Ctrl-C. Each round measures the targets in a rotated order after a 1 s
// warm-up each (the supervisor's proxy and nginx back to back, which first alternating); the
// tables show the medians over the rounds. The plain-HTTP section runs first,
// then the supervisor's proxy is switched to HTTPS live (`settings set proxy.https true`).
// Targets (issue 37): throughput at least 0.9x nginx's and p99 at full load at most nginx's + 1 ms,
// in both sections. `--background N` starts N busy processes first (bench/busy.mjs).
// Then, per section, `--pairs N` pairs of short throughput runs (`--pair-seconds`) of the
// supervisor's proxy and of nginx taking turns (which first alternates): the machine's speed
// drifts by a third within seconds, and runs next to each other share the moment better than the
// rounds' runs do. Printed: the ratio of their requests over all pairs, and each pair's. Each run
// opens its connections anew (over HTTPS, 50 handshakes a run): no p99 is read from them.
// Each throughput run also reads the CPU time (user and system, /proc) of the target's own
// processes: the proxy's front (or the supervisor without one), nginx's worker, the peer's and the
// pipe's process; µs a request is that over the requests served, a figure the drift moves less.
// Last, per section, the targets with PASS or FAIL (`verdict`): throughput from the pairs, p99
// from the rounds; the exit status is 1 when one fails.
import { execFile, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { busyMode, busyProcesses } from "./busy.mjs"
import { takingTurns } from "./pairs.mjs"
import { childPids, cpuMs } from "./proc.mjs"
import { supervisorNodeFlags } from "./sandbox.mjs"

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
const pairs = Number(opt("pairs", "10"))
const pairSeconds = Number(opt("pair-seconds", "2"))
const connections = Number(opt("connections", "50"))
const rate = Number(opt("rate", "5000"))
const jsonOut = opt("json", undefined)
const scheme = opt("scheme", "both")
if (!["both", "http", "https"].includes(scheme))
  throw new Error(`--scheme ${scheme}: use both, http or https`)
const onPath = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0
const tool = opt("tool", onPath("wrk") ? "wrk" : "autocannon")
// `--peer-flags supervisor`: the peer runs with the supervisor's own Node flags (src/host/nodeFlags.ts)
const SUPERVISOR_FLAGS = supervisorNodeFlags()
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

const children = []
const busy = busyProcesses(Number(opt("background", "0")))
const cleanup = () => {
  busy.stop()
  // nginx's master ends its workers on SIGTERM; killed outright, it would leave them running
  for (const c of children) c.kill(c.spawnfile === "nginx" ? "SIGTERM" : "SIGKILL")
  cli("supervisor", "stop")
  rmSync(root, { recursive: true, force: true })
}
process.on("SIGINT", () => {
  cleanup()
  process.exit(130)
})

/**
 * Starts a helper process and waits for its "up" line. Like nginx below, in a session of its own,
 * as the supervisor's proxy is: with Linux's autogroup scheduling CPU time is shared between
 * sessions first, and a proxy in the bench's session would share wrk's.
 */
const startChild = async (cmd, argv) => {
  const child = spawn(cmd, argv, { cwd: repo, stdio: ["ignore", "pipe", "inherit"], detached: true })
  children.push(child)
  await new Promise((res, rej) => {
    child.stdout.once("data", res)
    child.once("exit", (code) => rej(new Error(`${cmd} exited with ${code}`)))
  })
  return child
}

/** An RSA 2048 key and self-signed certificate for nginx and the TLS pipe (the proxy's leaves are RSA 2048 too). */
const makeCert = () => {
  const dir = join(root, "tls")
  mkdirSync(dir, { recursive: true })
  const key = join(dir, "key.pem")
  const cert = join(dir, "cert.pem")
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-sha256",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
    ].concat(["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]),
    { stdio: "ignore" },
  )
  if (made.status !== 0) throw new Error("openssl could not make a certificate (apt-get install -y openssl)")
  return { key, cert }
}

const waitPort = async (port, what) => {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((res) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy()
        res(true)
      })
      s.on("error", () => res(false))
    })
    if (up) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${what} did not start`)
}

/** nginx with one worker and kept-alive upstream connections, plain and with TLS, as a proxy of C for reference. */
const startNginx = async (port, tlsPort, targetPort, tls) => {
  const dir = join(root, "nginx")
  mkdirSync(dir, { recursive: true })
  const location = `location / {
      proxy_pass http://daemon;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }`
  writeFileSync(
    join(dir, "nginx.conf"),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  upstream daemon { server 127.0.0.1:${targetPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    ${location}
  }
  server {
    listen 127.0.0.1:${tlsPort} ssl;
    ssl_certificate ${tls.cert};
    ssl_certificate_key ${tls.key};
    ${location}
  }
}
`,
  )
  const child = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf")], {
    stdio: "ignore",
    detached: true,
  })
  children.push(child)
  await waitPort(port, "nginx")
  await waitPort(tlsPort, "nginx")
  return child
}

const ms = (value, unit) => Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit]

/** As fast as possible: wrk (one thread) or autocannon. */
const saturate = async (t, seconds) => {
  if (tool === "autocannon") {
    const r = await autocannon({
      url: t.url,
      connections,
      duration: seconds,
      headers: { host: t.host },
      servername: t.servername,
    })
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors }
  }
  const out = await new Promise((res, rej) =>
    execFile(
      "wrk",
      ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Host: ${t.host}`, t.url],
      (e, stdout) => (e ? rej(e) : res(stdout)),
    ),
  )
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, "m").exec(out)
    return m === null ? Number.NaN : ms(m[1], m[2])
  }
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? "0"
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    p50: pct(50),
    p99: pct(99),
    bad: Number(bad) + (errors === null ? 0 : errors.slice(1, 4).reduce((a, b) => a + Number(b), 0)),
  }
}

/** At a fixed rate below every target's throughput: the latency a request sees when no CPU is saturated. */
const atRate = async (t, seconds) => {
  const r = await autocannon({
    url: t.url,
    connections,
    duration: seconds,
    overallRate: rate,
    headers: { host: t.host },
    servername: t.servername,
  })
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors }
}

/**
 * The targets of a round in a rotated order, the supervisor's proxy and nginx back to back (which
 * first alternates by round): their ratio is the target, and the machine's speed can drift within
 * a round (on a shared host it moved by a third within a minute).
 */
const roundOrder = (targets, round) => {
  const rotate = (xs) => xs.map((_, i) => xs[(i + round) % xs.length])
  const proxy = targets.find((t) => t.name === "supervisor proxy")
  const nginx = targets.find((t) => t.nginx)
  if (proxy === undefined || nginx === undefined) return rotate(targets)
  const others = rotate(targets.filter((t) => t !== proxy && t !== nginx))
  const at = round % (others.length + 1)
  return [...others.slice(0, at), ...(round % 2 === 0 ? [proxy, nginx] : [nginx, proxy]), ...others.slice(at)]
}

/** CPU ms of `pids` so far (bench/proc.mjs); a process gone counts nothing. */
const cpuOf = (pids) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuMs(pid)
    } catch {
      return sum
    }
  }, 0)

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Measures `targets` side by side over the rounds; the medians as a table, and the samples. */
const measure = async (section, targets) => {
  const phases = [
    { name: "throughput", run: saturate },
    { name: "latency", run: atRate },
  ]
  const samples = new Map(phases.flatMap((p) => targets.map((t) => [`${p.name} ${t.name}`, []])))
  for (let round = 0; round < rounds; round++) {
    const order = roundOrder(targets, round)
    for (const phase of phases)
      for (const t of order) {
        await phase.run(t, 1)
        const pids = t.pids?.() ?? []
        const before = cpuOf(pids)
        const r = await phase.run(t, duration)
        if (r.bad > 0) throw new Error(`${t.name}: ${r.bad} failed requests`)
        // µs of CPU (user and system) the target's own processes spent a request
        r.cpuUs = pids.length === 0 ? Number.NaN : ((cpuOf(pids) - before) * 1000) / (r.rps * duration)
        samples.get(`${phase.name} ${t.name}`).push(r)
        const cpu = Number.isNaN(r.cpuUs) ? "" : `, ${r.cpuUs.toFixed(1)} µs of CPU a request`
        process.stderr.write(
          `${section} round ${round + 1} ${phase.name} ${t.name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${cpu}\n`,
        )
      }
  }
  const row = (key) => {
    const s = samples.get(key)
    return {
      rps: median(s.map((x) => x.rps)),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
      cpuUs: median(s.map((x) => x.cpuUs)),
    }
  }
  const round2 = (x) => Math.round(x * 100) / 100
  const out = {}
  const direct = row("throughput direct")
  const nginx = targets.find((t) => t.nginx)
  const nginxFull = nginx === undefined ? undefined : row(`throughput ${nginx.name}`)
  const lines = [
    `\n### ${section}\n`,
    `| target | req/s (median) | % of direct | x nginx | p99 ms at full load | CPU µs a request | p50 ms at ${rate} req/s | p99 ms at ${rate} req/s | added p99 ms |`,
    "|---|---|---|---|---|---|---|---|---|",
  ]
  const directRate = row("latency direct")
  for (const t of targets) {
    const full = row(`throughput ${t.name}`)
    const slow = row(`latency ${t.name}`)
    out[t.name] = {
      throughput: full,
      latency: slow,
      samples: { throughput: samples.get(`throughput ${t.name}`), latency: samples.get(`latency ${t.name}`) },
    }
    const xNginx = nginxFull === undefined ? "" : round2(full.rps / nginxFull.rps)
    lines.push(
      `| ${t.name} | ${Math.round(full.rps)} | ${Math.round((full.rps / direct.rps) * 100)}% | ${xNginx} | ${round2(full.p99)} | ${Number.isNaN(full.cpuUs) ? "" : full.cpuUs.toFixed(1)} | ${round2(slow.p50)} | ${round2(slow.p99)} | ${t.name === "direct" ? "" : round2(slow.p99 - directRate.p99)} |`,
    )
  }
  const proxy = out["supervisor proxy"]
  if (nginxFull !== undefined && proxy !== undefined) {
    // each round's ratios, not only the medians'
    const ours = proxy.samples.throughput
    const theirs = out[nginx.name].samples.throughput
    const ratios = ours.map((r, i) => round2(r.rps / theirs[i].rps))
    const p99s = ours.map((r, i) => round2(r.p99 - theirs[i].p99))
    const cpus = ours.map((r, i) => round2(r.cpuUs / theirs[i].cpuUs))
    lines.push(
      `\nsupervisor proxy vs nginx, each round: throughput ${ratios.join(", ")} x (target >= 0.9); p99 at full load ${p99s.join(", ")} ms more (target <= 1); CPU a request ${cpus.join(", ")} x`,
    )
    out.vsNginx = { ratios, p99s, cpus }
  }
  console.log(lines.join("\n"))
  return out
}

/** The supervisor's proxy against nginx in `pairs` pairs of short runs taking turns (bench/pairs.mjs). */
const paired = async (section, targets) => {
  const proxy = targets.find((t) => t.name === "supervisor proxy")
  const nginx = targets.find((t) => t.nginx)
  if (pairs <= 0 || proxy === undefined || nginx === undefined) return undefined
  const result = await takingTurns(proxy, nginx, pairs, async (t) => {
    const r = await saturate(t, pairSeconds)
    if (r.bad > 0) throw new Error(`${t.name}: ${r.bad} failed requests`)
    return r
  })
  console.log(
    `\n${section}, ${pairs} pairs of ${pairSeconds} s taking turns: supervisor proxy ${result.ratio}x nginx's requests (pairs ${result.ratios.join(", ")}; target >= 0.9)`,
  )
  return result
}

/**
 * Issue 37's targets for a section, printed with PASS or FAIL: throughput at least 0.9x nginx's,
 * from the pairs (runs back to back share the moment; the rounds' runs, others between them,
 * moved by up to a third from round to round) or, with `--pairs 0`, the median round; p99 at full
 * load at most nginx's + 1 ms, the median of the rounds' differences (the pairs' runs open their
 * connections anew: no p99 is read from them). False when one fails.
 */
const verdict = (section, result) => {
  const vs = result.vsNginx
  if (vs === undefined) return true
  const throughput = result.paired?.ratio ?? median(vs.ratios)
  const p99 = median(vs.p99s)
  const mark = (ok) => (ok ? "PASS" : "FAIL")
  console.log(
    `${section}: throughput ${throughput}x nginx's (${result.paired === undefined ? "median round" : "pairs"}; target >= 0.9): ${mark(throughput >= 0.9)}; p99 at full load ${p99} ms more (median round; target <= 1): ${mark(p99 <= 1)}; CPU a request ${median(vs.cpus)}x nginx's (median round)`,
  )
  return throughput >= 0.9 && p99 <= 1
}

const main = async () => {
  const [targetPort, proxyPort, peerPort, nginxPort, pipePort, tlsProxyPort, nginxTlsPort, tlsPipePort] =
    await Promise.all(Array.from({ length: 8 }, freePort))
  const sections = scheme === "both" ? ["http", "https"] : [scheme]
  writeFileSync(
    join(project, "server.cjs"),
    `require("node:http").createServer((req, res) => res.end("ok")).listen(${targetPort}, "127.0.0.1", () => console.log("up"))\n`,
  )
  writeFileSync(
    join(project, "supervisor.toml"),
    `[daemons.web]\nrun = "exec node server.cjs"\nready_output = "up"\n`,
  )
  const firstHttps = sections[0] === "https"
  writeFileSync(
    join(home, ".config", "supervisor", "config.toml"),
    `[slugs]\nbench = { dir = "${project}", daemon = "web" }\n\n[settings.proxy]\nenable = true\nhttps = ${firstHttps}\nport = ${firstHttps ? tlsProxyPort : proxyPort}\n`,
  )
  const started = cli("supervisor", "start")
  if (started.status !== 0) throw new Error(`supervisor start failed: ${started.stderr}`)
  const supervisorPid = JSON.parse(cli("supervisor", "status", "--json").stdout).pid
  // the proxy's own process: its native front (src/proxy/native/front.ts) or, without one, the
  // supervisor, whose proxy worker thread relays
  const proxyPids = () => {
    const front = childPids(supervisorPid, ["proxy-front"])
    return front.length > 0 ? front : [supervisorPid]
  }
  const daemon = cli("start", "web")
  if (daemon.status !== 0) throw new Error(`start web failed: ${daemon.stderr}`)
  const tls = makeCert()
  // the peer: a plain http-proxy server in its own process, as the supervisor's proxy is
  const peer = await startChild(process.execPath, [
    ...peerFlags,
    "-e",
    `const http = require("node:http")
    const proxy = require("http-proxy").createProxyServer({ target: "http://127.0.0.1:${targetPort}", agent: new http.Agent({ keepAlive: true, maxSockets: Infinity }), xfwd: true })
    proxy.on("error", (e, req, res) => { res.writeHead(502); res.end() })
    http.createServer((req, res) => proxy.web(req, res)).listen(${peerPort}, "127.0.0.1", () => console.log("up"))`,
  ])
  // references: bytes piped between two sockets, no HTTP at all (the most any Node proxy can do),
  // in the clear and out of a TLS server
  const pipe = await startChild(process.execPath, [
    "-e",
    `const net = require("node:net"), tls = require("node:tls"), fs = require("node:fs")
    const pipe = (c) => {
      const u = net.connect({ port: ${targetPort}, host: "127.0.0.1", noDelay: true })
      c.pipe(u); u.pipe(c)
      c.on("error", () => u.destroy()); u.on("error", () => c.destroy())
    }
    net.createServer({ noDelay: true }, pipe).listen(${pipePort}, "127.0.0.1", () =>
      tls.createServer({ key: fs.readFileSync(${JSON.stringify(tls.key)}), cert: fs.readFileSync(${JSON.stringify(tls.cert)}) }, pipe)
        .listen(${tlsPipePort}, "127.0.0.1", () => console.log("up")))`,
  ])
  const hasNginx = onPath("nginx")
  const nginxMaster = hasNginx ? await startNginx(nginxPort, nginxTlsPort, targetPort, tls) : undefined
  if (!hasNginx)
    process.stderr.write("nginx not installed (apt-get install -y nginx): its reference row is left out\n")
  const nginxPids = () => (nginxMaster === undefined ? [] : childPids(nginxMaster.pid, ["nginx"]))
  const target = (name, url, host, more = {}) => ({ name, url, host, ...more })
  const direct = target("direct", `http://127.0.0.1:${targetPort}/`, `127.0.0.1:${targetPort}`)
  const targets = {
    http: [
      direct,
      target("supervisor proxy", `http://127.0.0.1:${proxyPort}/`, `bench.localhost:${proxyPort}`, {
        pids: proxyPids,
      }),
      target("http-proxy (peer)", `http://127.0.0.1:${peerPort}/`, `127.0.0.1:${peerPort}`, {
        pids: () => [peer.pid],
      }),
      ...(hasNginx
        ? [
            target("nginx (reference)", `http://127.0.0.1:${nginxPort}/`, `127.0.0.1:${nginxPort}`, {
              nginx: true,
              pids: nginxPids,
            }),
          ]
        : []),
      target("Node TCP pipe (reference)", `http://127.0.0.1:${pipePort}/`, `127.0.0.1:${pipePort}`, {
        pids: () => [pipe.pid],
      }),
    ],
    // wrk sends the URL's host as SNI (an address: the proxy's certificate for its tld); autocannon bench.localhost
    https: [
      direct,
      target("supervisor proxy", `https://127.0.0.1:${tlsProxyPort}/`, `bench.localhost:${tlsProxyPort}`, {
        servername: "bench.localhost",
        pids: proxyPids,
      }),
      ...(hasNginx
        ? [
            target(
              "nginx with TLS (reference)",
              `https://127.0.0.1:${nginxTlsPort}/`,
              `127.0.0.1:${nginxTlsPort}`,
              {
                nginx: true,
                servername: "localhost",
                pids: nginxPids,
              },
            ),
          ]
        : []),
      target("Node TLS pipe (reference)", `https://127.0.0.1:${tlsPipePort}/`, `127.0.0.1:${tlsPipePort}`, {
        servername: "localhost",
        pids: () => [pipe.pid],
      }),
    ],
  }
  console.log(
    `\n${new Date().toISOString()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${os.loadavg()[0].toFixed(2)}, node ${process.version}`,
  )
  console.log(
    `${connections} connections, keep-alive, ${duration} s x ${rounds} rounds, 2-byte responses; throughput by ${tool}${tool === "wrk" ? " (1 thread)" : ""}, latency by autocannon at ${rate} req/s; peer flags: ${peerFlags.join(" ") || "none"}; ${busy.pids.length} busy background process(es) (${busyMode})`,
  )
  const out = {}
  for (const section of sections) {
    if (section === "https" && !firstHttps) {
      // the running supervisor follows settings.proxy live: the same process serves HTTPS now
      for (const [key, value] of [
        ["proxy.port", String(tlsProxyPort)],
        ["proxy.https", "true"],
      ]) {
        const set = cli("settings", "set", key, value, "--global")
        if (set.status !== 0) throw new Error(`settings set ${key} failed: ${set.stderr}`)
      }
      await waitPort(tlsProxyPort, "the HTTPS proxy")
    }
    const title = section === "http" ? "plain HTTP" : "HTTPS (HTTP/1.1 over TLS)"
    out[section] = await measure(title, targets[section])
    out[section].paired = await paired(title, targets[section])
    if (!verdict(title, out[section])) process.exitCode = 1
  }
  if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify(out, null, 2))
}

main()
  .catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
  .finally(cleanup)
