// Start-up cost of the CLI against the bare Node floor, measured in one run.
// Usage: node bench/cli-startup.mjs [runs]   (build first: npm run build)
// Runs each command `runs` times (default 30) after 3 warm-ups, interleaved so
// that machine noise hits every command alike, and prints median / p90 in ms.
// `list --json` talks to a supervisor of a temporary state directory, started first
// and stopped at the end. `supervisor` is the installed command, dist/supervisor (a shell script
// running the launcher: scripts/entry.sh); `node dist/supervisor.cjs` rows time the launcher alone.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const runs = Number(process.argv[2] ?? 30)
const bin = resolve("dist/supervisor.cjs")
const command = resolve("dist/supervisor")
const root = mkdtempSync(join(tmpdir(), "sv-bench-"))
const project = join(root, "demo")
mkdirSync(project)
writeFileSync(
  join(project, "supervisor.toml"),
  `[daemons.db]\nrun = "exec node db.js"\nport = 5432\nready_port = 5432\n\n[daemons.api]\nrun = "node server.js"\ndepends = ["db"]\nready_http = "http://127.0.0.1:3000/health"\n\n[daemons.worker]\nrun = "node worker.js"\nretry = 3\n`,
)
const env = {
  ...process.env,
  HOME: join(root, "home"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
}
const commands = [
  ["node -e 0", [process.execPath, "-e", "0"]],
  ["supervisor --version", [command, "--version"]],
  ["supervisor config show --json", [command, "config", "show", "--json"]],
  ["supervisor list --json", [command, "list", "--json"]],
  ["node dist/supervisor.cjs --version", [process.execPath, bin, "--version"]],
  ["node dist/supervisor.cjs list --json", [process.execPath, bin, "list", "--json"]],
]
const run = ([cmd, ...args]) => {
  const r = spawnSync(cmd, args, { cwd: project, env, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`)
}
const time = (argv) => {
  const t = process.hrtime.bigint()
  run(argv)
  return Number(process.hrtime.bigint() - t) / 1e6
}
const samples = commands.map(() => [])
run([process.execPath, bin, "supervisor", "start"])
try {
  for (let i = 0; i < runs + 3; i++) {
    commands.forEach(([, argv], j) => {
      const ms = time(argv)
      if (i >= 3) samples[j].push(ms)
    })
  }
} finally {
  run([process.execPath, bin, "supervisor", "stop"])
  rmSync(root, { recursive: true, force: true })
}
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const floor = q(samples[0], 0.5)
console.log(`| command | median ms | p90 ms | x node -e 0 |`)
console.log(`|---|---|---|---|`)
commands.forEach(([name], j) => {
  const m = q(samples[j], 0.5)
  console.log(
    `| \`${name}\` | ${m.toFixed(1)} | ${q(samples[j], 0.9).toFixed(1)} | ${(m / floor).toFixed(2)} |`,
  )
})
