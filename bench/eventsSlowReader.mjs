// What a client that reads nothing costs the supervisor's memory: a stream of `GET /api/events`
// opened and never read while daemons restart for `--seconds`, then read to its end.
// Usage: node bench/eventsSlowReader.mjs [--seconds 60] [--streams 1]   (build first: npm run build)
//
// Four daemons (`exec sleep 300`) restart over and over (five events each). First a window of the
// same length with no stream open (the supervisor's own growth), then the same with `--streams`
// streams open that read nothing. The supervisor's RSS every 5 s in both; then the streams read
// again: the events each got, and its `EventsDropped` markers.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { benchSandbox } from "./sandbox.mjs"

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const SECONDS = option("seconds", 60)
const STREAMS = option("streams", 1)

const root = mkdtempSync(join(tmpdir(), "sv-slow-reader-"))
const project = join(root, "app")
const names = ["a", "b", "c", "d"]
const { env, cli } = benchSandbox(root, project)
await import("node:fs").then((fs) => {
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(
    join(project, "supervisor.toml"),
    `namespace = "app"\n${names.map((n) => `[daemons.${n}]\nrun = "exec sleep 300"\nready_delay = 0\n`).join("\n")}`,
  )
})
const socketPath = join(env.SUPERVISOR_STATE_DIR, "sock", "api.sock")
const rssMiB = (pid) => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])
  return kb / 1024
}
const restart = (id) =>
  new Promise((ok, fail) => {
    const req = request({ socketPath, path: `/api/daemons/app%2F${id}/restart`, method: "POST" }, (res) => {
      res.resume()
      res.on("end", ok)
    })
    req.on("error", fail)
    req.end()
  })
/** Restarts the daemons until `seconds` pass; the RSS every 5 s. */
const churn = async (pid, seconds) => {
  const series = [rssMiB(pid)]
  const end = Date.now() + seconds * 1000
  let next = Date.now() + 5000
  let restarts = 0
  while (Date.now() < end) {
    await Promise.all(names.map(restart))
    restarts += names.length
    if (Date.now() >= next) {
      series.push(rssMiB(pid))
      next += 5000
    }
  }
  series.push(rssMiB(pid))
  return { series, restarts }
}
const fmt = (series) => series.map((m) => m.toFixed(1)).join(", ")

try {
  cli("supervisor", "start")
  cli("start", "--all", "--quiet")
  const pid = JSON.parse(cli("supervisor", "status", "--json")).pid
  await sleep(3000)
  const alone = await churn(pid, SECONDS)
  console.log(`no stream open, ${SECONDS} s, ${alone.restarts} restarts: RSS MiB ${fmt(alone.series)}`)
  const streams = await Promise.all(
    Array.from(
      { length: STREAMS },
      () =>
        new Promise((ok) => {
          const socket = connect(socketPath, () => {
            socket.pause() // reads nothing from here on
            socket.write("GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            ok(socket)
          })
        }),
    ),
  )
  const stalled = await churn(pid, SECONDS)
  console.log(
    `${STREAMS} stream(s) reading nothing, ${SECONDS} s, ${stalled.restarts} restarts (${stalled.restarts * 5} events): RSS MiB ${fmt(stalled.series)}`,
  )
  const counts = await Promise.all(
    streams.map(
      (socket) =>
        new Promise((ok) => {
          let text = ""
          socket.setEncoding("utf8")
          socket.on("data", (d) => {
            text += d
          })
          socket.resume()
          // what it holds comes at once; then the stream stays open: count what came in a second
          setTimeout(() => {
            socket.destroy()
            ok({
              events: (text.match(/"seq":/g) ?? []).length,
              dropped: (text.match(/"EventsDropped"/g) ?? []).length,
              bytes: Buffer.byteLength(text),
            })
          }, 1000)
        }),
    ),
  )
  for (const c of counts)
    console.log(
      `  a stream read again: ${c.events} events (${(c.bytes / 1024).toFixed(0)} KiB) and ${c.dropped} dropped marker(s)`,
    )
} finally {
  try {
    cli("supervisor", "stop")
  } catch {}
  rmSync(root, { recursive: true, force: true })
}
