// What `pty = true` costs: the memory of its holder processes, the start of daemons with and
// without it, and a flood through the pseudo-terminal. Usage (build first: npm run build):
//   node bench/pty-cost.mjs [--daemons 10] [--rounds 3] [--lines 1000000]
// One supervisor in a temp dir (its own HOME and state dir); everything is stopped at the end.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i < 0 ? dflt : Number(argv[i + 1])
}
const N = opt("daemons", 10)
const ROUNDS = opt("rounds", 3)
const LINES = opt("lines", 1_000_000)
const BIN = fileURLToPath(new URL("../dist/supervisor.cjs", import.meta.url))
const root = mkdtempSync(join(tmpdir(), "sv-pty-"))
const env = {
  PATH: process.env.PATH,
  HOME: join(root, "home"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  NO_COLOR: "1",
}
mkdirSync(env.HOME)
const proj = join(root, "proj")
mkdirSync(proj)
const daemons = (prefix, pty) =>
  Array.from(
    { length: N },
    (_, i) => `[daemons.${prefix}${i}]\nrun = "exec sleep 100000"\nready_delay = 0\npty = ${pty}\n`,
  )
const floods = Array.from(
  { length: ROUNDS },
  (_, r) =>
    `[daemons.fp${r}]\nrun = "exec seq 1 ${LINES}"\nready_delay = 0\npty = true\n[daemons.ft${r}]\nrun = "exec seq 1 ${LINES}"\nready_delay = 0\n`,
)
writeFileSync(
  join(proj, "supervisor.toml"),
  [...daemons("p", true), ...daemons("t", false), ...floods].join("\n"),
)

const now = () => Number(process.hrtime.bigint()) / 1e6
const sv = (...args) => {
  const t = now()
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: proj,
    env,
    encoding: "utf8",
    timeout: 120_000,
  })
  if (r.status !== 0) throw new Error(`supervisor ${args.join(" ")}: ${r.stderr}`)
  return { ...r, ms: now() - t }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const kib = (pid, key) =>
  Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1])
const holders = () =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("supervisor-pty proj/")
      } catch {
        return false
      }
    })
const indexed = (id) => {
  try {
    return readFileSync(join(env.SUPERVISOR_STATE_DIR, "logs", `proj--${id}.idx`), "utf8")
      .split("\n")
      .slice(1)
      .filter((l) => l.startsWith("{"))
      .reduce((n, l) => n + JSON.parse(l).n, 0)
  } catch {
    return 0
  }
}
const storedWithin = async (id, started) => {
  for (;;) {
    if (indexed(id) >= LINES) return now() - started
    if (now() - started > 60_000) return Number.NaN
    await new Promise((r) => setTimeout(r, 10))
  }
}

try {
  console.error(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  )
  sv("supervisor", "start")
  const start = { pty: [], plain: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [kind, prefix] of r % 2 === 0
      ? [
          ["pty", "p"],
          ["plain", "t"],
        ]
      : [
          ["plain", "t"],
          ["pty", "p"],
        ]) {
      const ids = Array.from({ length: N }, (_, i) => `${prefix}${i}`)
      start[kind].push(sv("start", ...ids, "--quiet").ms)
      if (kind === "pty") {
        // each holder is forked as its daemon starts, maybe just after `start` returned
        const deadline = now() + 5000
        while (holders().length < N && now() < deadline) await new Promise((r) => setTimeout(r, 10))
        const hs = holders()
        if (hs.length !== N) throw new Error(`expected ${N} holders, found ${hs.length}`)
        if (r === ROUNDS - 1)
          start.memory = {
            rss: median(hs.map((p) => kib(p, "Rss"))),
            pss: median(hs.map((p) => kib(p, "Pss"))),
            private: median(hs.map((p) => kib(p, "Private_Clean") + kib(p, "Private_Dirty"))),
          }
      }
      sv("stop", ...ids)
    }
  }
  const flood = { pty: [], plain: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [kind, id] of [
      ["pty", `fp${r}`],
      ["plain", `ft${r}`],
    ]) {
      const t = now()
      sv("start", id, "--quiet")
      flood[kind].push(await storedWithin(id, t))
    }
  }
  const out = (id) => statSync(join(env.SUPERVISOR_STATE_DIR, "logs", `proj--${id}.out`)).size
  console.log(`## pty = true (${N} daemons, ${ROUNDS} rounds, ${LINES} lines per flood)\n`)
  console.log("| | pty = true | pty = false |\n|---|---|---|")
  console.log(
    `| start of ${N} \`exec sleep\` daemons, ms (median) | ${median(start.pty).toFixed(0)} | ${median(start.plain).toFixed(0)} |`,
  )
  console.log(
    `| flood of ${LINES} lines stored whole, ms (median; rounds) | ${median(flood.pty).toFixed(0)} (${flood.pty.map((x) => x.toFixed(0)).join(", ")}) | ${median(flood.plain).toFixed(0)} (${flood.plain.map((x) => x.toFixed(0)).join(", ")}) |`,
  )
  console.log(`| bytes stored of the last flood | ${out(`fp${ROUNDS - 1}`)} | ${out(`ft${ROUNDS - 1}`)} |`)
  console.log(
    `\nholder process per pty daemon (median of ${N}): RSS ${start.memory.rss} KiB, PSS ${start.memory.pss} KiB, private ${start.memory.private} KiB`,
  )
} finally {
  try {
    sv("supervisor", "stop")
  } catch {}
  rmSync(root, { recursive: true, force: true })
}
