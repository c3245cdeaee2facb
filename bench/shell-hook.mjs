// What the shell hook costs a prompt: `supervisor cd --shell-pid PID` against a running
// supervisor, alternating between a project directory and another one (each run is a real
// directory change), beside the bare Node floor, interleaved so that noise hits both alike.
// Usage: node bench/shell-hook.mjs [runs]   (build first: npm run build; default 50 runs)
// Prints median and p90 in ms. The target is a median under 60 ms (docs/benchmarks.md). When
// NODE_EXTRA_CA_CERTS is set (Node parses that bundle before any script), both are also timed
// without it, as in a shell that does not set it. The hook's node starts without it either way
// (the hook hands it to the launcher: src/shell/hooks.ts); `node -e 0` with it.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const runs = Number(process.argv[2] ?? 50)
const bin = resolve("dist/supervisor.cjs")
const root = mkdtempSync(join(tmpdir(), "sv-bench-hook-"))
const project = join(root, "app")
const other = join(root, "elsewhere")
mkdirSync(project)
mkdirSync(other)
// `auto = ["stop"]` and nothing running: each `cd` records the move and starts nothing
writeFileSync(join(project, "supervisor.toml"), `[daemons.api]\nrun = "exec sleep 300"\nauto = ["stop"]\n`)
const env = {
  ...process.env,
  HOME: join(root, "home"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  SUPERVISOR_CONFIG_DIR: join(root, "home", ".config", "supervisor"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
}
const bare = { ...env }
delete bare.NODE_EXTRA_CA_CERTS
const variants =
  env.NODE_EXTRA_CA_CERTS === undefined
    ? [["", env]]
    : [
        ["", env],
        [" (no NODE_EXTRA_CA_CERTS)", bare],
      ]
const run = (argv, cwd, environment = env) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(argv[0], argv.slice(1), { cwd, env: environment, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`)
  return Number(process.hrtime.bigint() - t) / 1e6
}
// as the hook runs it (src/shell/hooks.ts): node without NODE_EXTRA_CA_CERTS, handed to the launcher
const hookEnv = (environment) => ({
  ...environment,
  SUPERVISOR_EXTRA_CA_CERTS: environment.NODE_EXTRA_CA_CERTS ?? "",
  NODE_EXTRA_CA_CERTS: "",
})
// this process stands for the shell: alive for the whole run
const cd = [process.execPath, bin, "cd", "--shell-pid", String(process.pid)]
const floor = variants.map(() => [])
const hook = variants.map(() => [])
run([process.execPath, bin, "supervisor", "start"], root)
try {
  for (let i = 0; i < runs + 3; i++) {
    variants.forEach(([, environment], v) => {
      const f = run([process.execPath, "-e", "0"], root, environment)
      const h = run(cd, i % 2 === 0 ? project : other, hookEnv(environment))
      if (i >= 3) {
        floor[v].push(f)
        hook[v].push(h)
      }
    })
  }
} finally {
  run([process.execPath, bin, "supervisor", "stop"], root)
  rmSync(root, { recursive: true, force: true })
}
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
console.log(`| command | median ms | p90 ms |`)
console.log(`|---|---|---|`)
variants.forEach(([label], v) => {
  console.log(`| node -e 0${label} | ${q(floor[v], 0.5).toFixed(1)} | ${q(floor[v], 0.9).toFixed(1)} |`)
  console.log(
    `| supervisor cd --shell-pid${label} | ${q(hook[v], 0.5).toFixed(1)} | ${q(hook[v], 0.9).toFixed(1)} |`,
  )
})
