// Keystroke-to-echo latency through `supervisor attach`'s wire, side by side with tmux.
// Usage: node bench/attach.mjs [--keys 300] [--background N]   (build first: npm run build; needs tmux)
//
// The same program in both: `cat` on a terminal (the terminal echoes each key as it is typed).
// - attach, Unix socket: a WebSocket client of GET /api/daemons/{id}/attach over the state
//   directory's socket sends one key (a binary frame) and waits until that key comes back in the
//   output; the time between is one sample. The key goes supervisor -> input pipe -> the pty
//   holder -> the terminal, whose echo goes holder -> log file -> the supervisor -> the client.
// - attach, loopback TCP: the same over the web listener (ws://127.0.0.1:PORT, with the token).
// - tmux: `tmux send-keys` of the key, then `tmux capture-pane -p` (1 ms apart) until the key
//   shows: what a script driving a tmux-held process (overmind's way) pays per key.
// p50 / p90 / p99 / max in ms over `--keys` keys each, after 20 keys of warm-up.
// `--background N` starts N busy processes first (bench/busy.mjs), for a busy machine.

import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { busyMode, busyProcesses } from "./busy.mjs"
import { benchSandbox, freePort } from "./sandbox.mjs"

const WebSocket = createRequire(import.meta.url)("ws")
const args = process.argv.slice(2)
const options = { keys: "300", background: "0" }
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const KEYS = Number(options.keys)
const WARM = 20
const root = mkdtempSync(join(tmpdir(), "sv-attach-bench-"))
const project = join(root, "app")
mkdirSync(project)
writeFileSync(
  join(project, "supervisor.toml"),
  '[daemons.echo]\nrun = "exec cat"\npty = true\nready_delay = 0.1\n',
)
const { env, cli } = benchSandbox(root, project, { TERM: "xterm-256color" })
const stats = (samples) => {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s[s.length - 1] }
}
const fmt = (name, s) =>
  `${name.padEnd(26)} p50 ${s.p50.toFixed(2)}  p90 ${s.p90.toFixed(2)}  p99 ${s.p99.toFixed(2)}  max ${s.max.toFixed(2)} ms`
// keys that are echoed as themselves, one at a time
const keyAt = (i) => String.fromCharCode(97 + (i % 26))

/** A promise like `new Promise(start)` that fails once 10 s have passed without it settling. */
const within = (what, start) => {
  let timer
  return Promise.race([
    new Promise(start),
    new Promise((_, fail) => {
      timer = setTimeout(() => fail(new Error(`attach: no ${what} in 10 s`)), 10_000)
    }),
  ]).finally(() => clearTimeout(timer))
}

/** Sends each key over an attach WebSocket and times its echo. */
const viaAttach = async (url, headers) => {
  const ws = new WebSocket(url, { headers })
  let waiting
  /** The output since the last line was ended, while `cat`'s copy of that line is awaited. */
  let copy
  ws.on("message", (data, binary) => {
    if (!binary) return
    if (copy !== undefined) {
      copy.text += data.toString("latin1")
      if (copy.text.includes(`${copy.line}\n`)) {
        const c = copy
        copy = undefined
        c.done()
      }
    } else if (waiting !== undefined && data.includes(waiting.key)) {
      const w = waiting
      waiting = undefined
      w.done(performance.now() - w.at)
    }
  })
  await new Promise((ok, fail) => {
    ws.once("open", ok)
    ws.once("error", fail)
  })
  await new Promise((ok) => setTimeout(ok, 300)) // the recent screen has come
  const samples = []
  let line = ""
  for (let i = 0; i < KEYS + WARM; i++) {
    const key = keyAt(i)
    line += key
    const ms = await within(`the echo of key ${i}`, (done) => {
      waiting = { key, at: performance.now(), done }
      ws.send(Buffer.from(key))
    })
    if (i >= WARM) samples.push(ms)
    if (i % 60 === 59) {
      // keep the line short; cat prints it back, which must not be taken for the next key's echo
      await within("cat's copy of a line", (done) => {
        copy = { line, text: "", done }
        ws.send(Buffer.from("\r"))
      })
      line = ""
    }
    await new Promise((ok) => setTimeout(ok, 2))
  }
  ws.close()
  return stats(samples)
}

const pause = new Int32Array(new SharedArrayBuffer(4))
/** tmux: send-keys, then capture-pane (every millisecond) until the key shows at the cursor's line. */
const viaTmux = () => {
  const socket = `sv-attach-bench-${process.pid}`
  const tmux = (...a) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...a], { encoding: "utf8", env })
  /** Captures the pane until it ends with `text`. A pause between captures: back to back, they keep
   * the tmux server from reading the pane's output once its share of a busy machine is small. */
  const untilPaneEndsWith = (text) => {
    const deadline = performance.now() + 10_000
    while (!tmux("capture-pane", "-p", "-t", "b").stdout.trimEnd().endsWith(text)) {
      if (performance.now() > deadline)
        throw new Error(`tmux: the pane did not show ${JSON.stringify(text)} in 10 s`)
      Atomics.wait(pause, 0, 0, 1)
    }
  }
  tmux("new-session", "-d", "-s", "b", "-x", "200", "-y", "50", "cat")
  const samples = []
  let line = ""
  for (let i = 0; i < KEYS + WARM; i++) {
    const key = keyAt(i)
    line += key
    const at = performance.now()
    tmux("send-keys", "-t", "b", "-l", key)
    untilPaneEndsWith(line)
    if (i >= WARM) samples.push(performance.now() - at)
    if (i % 60 === 59) {
      // keep the line short; wait for cat's copy of it, or the next key's echo (the terminal's,
      // at once) would come before the copy, and the pane would not end with that key
      tmux("send-keys", "-t", "b", "Enter")
      untilPaneEndsWith(`${line}\n${line}`)
      line = ""
    }
  }
  tmux("kill-server")
  return stats(samples)
}

const busy = busyProcesses(Number(options.background))
try {
  const port = await freePort()
  cli("supervisor", "start", "--web-port", String(port))
  const token = cli("supervisor", "token").trim()
  cli("start", "echo")
  const path = "/api/daemons/app%2Fecho/attach"
  console.log(
    `${cpus().length} cores, load ${loadavg()[0].toFixed(2)}, ${options.background} busy process(es) (${busyMode}), ${KEYS} keys each`,
  )
  console.log(
    fmt(
      "attach, Unix socket",
      await viaAttach(`ws+unix://${join(env.SUPERVISOR_STATE_DIR, "sock", "api.sock")}:${path}`, {}),
    ),
  )
  console.log(
    fmt(
      "attach, loopback TCP",
      await viaAttach(`ws://127.0.0.1:${port}${path}`, {
        "x-supervisor-token": token,
        origin: `http://127.0.0.1:${port}`,
      }),
    ),
  )
  console.log(fmt("tmux send-keys + capture", viaTmux()))
} finally {
  busy.stop()
  try {
    cli("supervisor", "stop")
  } catch {}
  rmSync(root, { recursive: true, force: true })
}
