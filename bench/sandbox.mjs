// The sandbox of a benchmark: a supervisor of its own under `root` (state, config and home there,
// nothing of the machine's), and the CLI run in `project` against it.
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const BIN = resolve(import.meta.dirname, "../dist/supervisor.cjs")

/** Where the benchmarks install their peers ($SUPERVISOR_BENCH_CACHE, else <tmpdir>/supervisor-bench). */
export const BENCH_CACHE = process.env.SUPERVISOR_BENCH_CACHE ?? join(tmpdir(), "supervisor-bench")
/** PM2's CLI as bench/daemons.mjs and bench/automation.mjs install it. */
export const PM2_BIN = join(BENCH_CACHE, "pm2", "node_modules", "pm2", "bin", "pm2")

/** The Node flags a background supervisor runs with, as src/host/nodeFlags.ts lists them. */
export const supervisorNodeFlags = () =>
  [
    ...readFileSync(resolve(import.meta.dirname, "../src/host/nodeFlags.ts"), "utf8").matchAll(
      /^\s*"(--[^"]+)",$/gm,
    ),
  ].map((m) => m[1])

/**
 * The environment a background supervisor gets on top of its caller's (src/host/mallocTuning.ts):
 * for benchmarks that start one in the foreground, as a background one would run.
 */
export const supervisorEnv = () => {
  const text = readFileSync(resolve(import.meta.dirname, "../src/host/mallocTuning.ts"), "utf8")
  const tunables = /MALLOC_TUNABLES = "([^"]+)"/.exec(text)?.[1]
  const marker = /MALLOC_TUNED = "([^"]+)"/.exec(text)?.[1]
  if (tunables === undefined || marker === undefined)
    throw new Error("src/host/mallocTuning.ts: no tunables found")
  return { GLIBC_TUNABLES: tunables, [marker]: "1" }
}

/**
 * `env`: the sandbox's environment (with `extra`); `cli(...argv)`: its stdout, or a thrown stderr,
 * of the CLI at `bin` (this repository's build by default).
 */
export const benchSandbox = (root, project, extra = {}, bin = BIN) => {
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    SUPERVISOR_STATE_DIR: join(root, "state"),
    SUPERVISOR_CONFIG_DIR: join(root, "home", ".config", "supervisor"),
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
    ...extra,
  }
  mkdirSync(env.HOME, { recursive: true })
  const cli = (...argv) => {
    const r = spawnSync(process.execPath, [bin, ...argv], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 300_000,
    })
    if (r.status !== 0) throw new Error(`supervisor ${argv.join(" ")}: ${r.stderr}`)
    return r.stdout
  }
  return { env, cli }
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export const freePort = () =>
  new Promise((ok) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

/**
 * A copy of the build in `dir` (its dist/ and package.json) under `root`, for a benchmark of
 * builds side by side: the supervisor rewrites its code cache when its flags differ, and a
 * rebuild of the repository during the run must not change what is measured. Returns the copy's
 * directory and its CLI.
 */
export const copyBuild = (dir, root, name) => {
  if (!existsSync(join(dir, "dist", "supervisor.cjs")))
    throw new Error(`${dir}/dist/supervisor.cjs is missing`)
  const copy = join(root, name)
  cpSync(join(dir, "dist"), join(copy, "dist"), { recursive: true })
  cpSync(join(dir, "package.json"), join(copy, "package.json"))
  return { copy, bin: join(copy, "dist", "supervisor.cjs") }
}
