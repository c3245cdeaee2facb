import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { type RequestOptions, request } from "node:http"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export const BIN = resolve(__dirname, "../../dist/supervisor.cjs")

/**
 * A copy of the built package under `root`: the launcher's files of dist/ (bundles, caches,
 * quick.cjs; not source maps, not the client's types/) and package.json, so that a test can
 * remove one of them (the CLI bundle: only the quick client can answer). Returns the copy's dist/.
 */
export const copyInstall = (root: string): string => {
  const from = dirname(BIN)
  const dist = join(root, "dist")
  mkdirSync(dist, { recursive: true })
  for (const f of readdirSync(from, { withFileTypes: true }))
    if (f.isFile() && !f.name.endsWith(".map")) copyFileSync(join(from, f.name), join(dist, f.name))
  copyFileSync(join(from, "..", "package.json"), join(root, "package.json"))
  return dist
}

export interface Sandbox {
  readonly root: string
  readonly home: string
  readonly env: Record<string, string>
  /** Writes files relative to the sandbox root. */
  readonly write: (files: Record<string, string>) => void
  readonly cleanup: () => void
}

/** A temporary tree with its own HOME and global config dirs: nothing of the real machine leaks in. */
export const makeSandbox = (): Sandbox => {
  const root = mkdtempSync(join(tmpdir(), "sv-e2e-"))
  const home = join(root, "home")
  mkdirSync(home)
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc", "supervisor"),
    SUPERVISOR_CONFIG_DIR: join(home, ".config", "supervisor"),
    NO_COLOR: "1",
    // `boot enable` writes under this HOME, never /etc/systemd/system (tests may run as root)
    SUPERVISOR_BOOT_SCOPE: "user",
    // `SUPERVISOR_SPAWN_HELPER=0 npx vitest run test/e2e`: every e2e test with Node forking the daemons
    ...(process.env.SUPERVISOR_SPAWN_HELPER === undefined
      ? {}
      : { SUPERVISOR_SPAWN_HELPER: process.env.SUPERVISOR_SPAWN_HELPER }),
  }
  return {
    root,
    home,
    env,
    write: (files) => {
      for (const [rel, content] of Object.entries(files)) {
        const path = join(root, rel)
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(path, content)
      }
    },
    cleanup: () => {
      // a supervisor that a command of the test started (most commands start one) goes with it
      if (existsSync(join(home, ".local", "state", "supervisor")))
        spawnSync(process.execPath, [BIN, "supervisor", "stop"], { cwd: root, env, timeout: 30_000 })
      rmSync(root, { recursive: true, force: true })
    },
  }
}

export interface CliResult {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI, as a user would. */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; input?: string },
): CliResult => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`)
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    ...(options.input !== undefined ? { input: options.input } : {}),
    encoding: "utf8",
    timeout: 30_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A stack trace line, which must never reach a user for bad input. */
export const STACK_LINE = /^\s+at .+[(:]/m

// ---------------------------------------------------------------------------
// Daemon e2e helpers: a real supervisor per sandbox, real processes, polling.
// ---------------------------------------------------------------------------

export interface TimedResult extends CliResult {
  /** Wall-clock milliseconds the command took. */
  readonly ms: number
}

/** Runs the built CLI without blocking the test's event loop (for concurrency and timing). */
export const runCliAsync = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; timeout?: number },
): Promise<TimedResult> =>
  new Promise((resolvePromise, reject) => {
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d
    })
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d
    })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`supervisor ${args.join(" ")} did not finish within ${options.timeout ?? 30_000} ms`))
    }, options.timeout ?? 30_000)
    child.on("error", reject)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolvePromise({ status, stdout, stderr, ms: Date.now() - started })
    })
  })

/** A long-running CLI (`logs -f`, `supervisor run`) whose output is read as it arrives. */
export interface Running {
  readonly child: ChildProcess
  readonly pid: number
  /** Everything printed to stdout so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the exit status (or the signal's name) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export const spawnCli = (
  args: ReadonlyArray<string>,
  /**
   * `stdin`: a pipe the test writes to (`child.stdin`); else /dev/null. `wrap`: a command that runs
   * the CLI (`["unshare", "--pid", "--fork"]`): then `pid` and `child` are that command's.
   */
  options: { cwd: string; env: Record<string, string>; stdin?: boolean; wrap?: ReadonlyArray<string> },
): Running => {
  const [file, ...wrapArgs] = [...(options.wrap ?? []), process.execPath]
  const child = spawn(file!, [...wrapArgs, BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin === true ? "pipe" : "ignore", "pipe", "pipe"],
  })
  let out = ""
  let err = ""
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    err += d
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on("close", (code, signal) => res({ code, signal })),
  )
  return { child, pid: child.pid!, stdout: () => out, stderr: () => err, exited }
}

/**
 * Polls `condition` every `interval` ms until it returns something truthy (which it
 * returns), or fails after `timeout` ms with `what` and the last value seen.
 */
export const waitFor = async <A>(
  what: string,
  condition: () => A | Promise<A>,
  options: { timeout?: number; interval?: number } = {},
): Promise<NonNullable<A>> => {
  const deadline = Date.now() + (options.timeout ?? 10_000)
  let last: A | undefined
  for (;;) {
    last = await condition()
    if (last) return last as NonNullable<A>
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${options.timeout ?? 10_000} ms waiting for ${what} (last: ${String(last)})`,
      )
    await new Promise((r) => setTimeout(r, options.interval ?? 50))
  }
}

const readProc = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8")
  } catch {
    return undefined
  }
}

/** The state letter of `/proc/<pid>/stat` (R, S, Z, ...), or undefined when there is no such process. */
export const procState = (pid: number): string | undefined => {
  const stat = readProc(pid, "stat")
  if (stat === undefined) return undefined
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
}

/** Alive: it exists and is not a zombie (Z) or dead (X); a zombie has exited. */
export const isAlive = (pid: number): boolean => {
  const state = procState(pid)
  return state !== undefined && state !== "Z" && state !== "X"
}

const allPids = (): Array<number> => {
  try {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
  } catch {
    return []
  }
}

export const environOf = (pid: number): Map<string, string> => {
  const out = new Map<string, string>()
  for (const kv of (readProc(pid, "environ") ?? "").split("\0")) {
    const i = kv.indexOf("=")
    if (i > 0) out.set(kv.slice(0, i), kv.slice(i + 1))
  }
  return out
}

export const cmdlineOf = (pid: number): Array<string> =>
  (readProc(pid, "cmdline") ?? "").split("\0").filter((s) => s !== "")

/** Live processes whose environment has `SUPERVISOR_STATE_DIR=stateDir` (ours: nobody else uses that dir). */
export const processesOf = (stateDir: string): Array<number> =>
  allPids().filter(
    (pid) => pid !== process.pid && isAlive(pid) && environOf(pid).get("SUPERVISOR_STATE_DIR") === stateDir,
  )

/** Live supervisor processes (`supervisor supervisor run`) of a state dir. */
export const supervisorPids = (stateDir: string): Array<number> =>
  processesOf(stateDir).filter((pid) => {
    const argv = cmdlineOf(pid)
    const i = argv.indexOf("supervisor")
    return i >= 0 && argv[i + 1] === "run" && !environOf(pid).has("SUPERVISOR_DAEMON_ID")
  })

/** Live processes of daemons (the tracked process and its descendants) of a state dir, optionally one daemon. */
export const daemonPids = (stateDir: string, id?: string): Array<number> =>
  processesOf(stateDir).filter((pid) => {
    const daemon = environOf(pid).get("SUPERVISOR_DAEMON_ID")
    return daemon !== undefined && (id === undefined || daemon === id)
  })

export interface DaemonSandbox extends Sandbox {
  readonly stateDir: string
  /** A project directory under the sandbox (created), e.g. `dir("app")`. */
  readonly dir: (name: string) => string
  /** Writes `<name>/supervisor.toml` and returns the directory. */
  readonly project: (name: string, toml: string) => string
  readonly cli: (args: ReadonlyArray<string>, cwd: string, env?: Record<string, string>) => CliResult
  readonly cliAsync: (
    args: ReadonlyArray<string>,
    cwd: string,
    env?: Record<string, string>,
  ) => Promise<TimedResult>
  /** Stops the supervisor, SIGKILLs whatever of ours is left, deletes the tree. Never throws. */
  readonly destroy: () => void
}

/** A sandbox with its own state dir, for tests that run a real supervisor. */
export const makeDaemonSandbox = (): DaemonSandbox => {
  const sb = makeSandbox()
  const stateDir = join(sb.root, "state")
  sb.env.SUPERVISOR_STATE_DIR = stateDir
  const dir = (name: string) => {
    const d = join(sb.root, name)
    mkdirSync(d, { recursive: true })
    return d
  }
  return {
    ...sb,
    stateDir,
    dir,
    project: (name, toml) => {
      const d = dir(name)
      writeFileSync(join(d, "supervisor.toml"), toml)
      return d
    },
    cli: (args, cwd, env) => runCli(args, { cwd, env: env ?? sb.env }),
    cliAsync: (args, cwd, env) => runCliAsync(args, { cwd, env: env ?? sb.env }),
    destroy: () => {
      try {
        if (supervisorPids(stateDir).length > 0) runCli(["supervisor", "stop"], { cwd: sb.root, env: sb.env })
      } catch {}
      for (const pid of processesOf(stateDir)) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {}
      }
      sb.cleanup()
    },
  }
}

/** One line of a `list` table (plain: NO_COLOR) split into its columns. */
export const tableRow = (stdout: string, id: string): Array<string> | undefined =>
  stdout
    .split("\n")
    .map((l) => l.trim().split(/\s{2,}/))
    .find((cols) => cols[0] === id)

/**
 * GET on the supervisor's API over its Unix socket: a cheap way for a test to
 * look at daemon state without paying a CLI start-up. Resolves undefined when
 * nothing answers.
 */
export const apiGet = <A = unknown>(stateDir: string, path: string): Promise<A | undefined> =>
  apiCall<A>(stateDir, "GET", path)

/** POST with a JSON body on the supervisor's API (e.g. `/api/cli/logs`); undefined when nothing answers. */
export const apiPost = <A = unknown>(stateDir: string, path: string, body: unknown): Promise<A | undefined> =>
  apiCall<A>(stateDir, "POST", path, body)

/** DELETE on the supervisor's API (e.g. `/api/namespaces/app`); undefined when nothing answers. */
export const apiDelete = <A = unknown>(stateDir: string, path: string): Promise<A | undefined> =>
  apiCall<A>(stateDir, "DELETE", path)

const apiCall = <A>(stateDir: string, method: string, path: string, body?: unknown): Promise<A | undefined> =>
  new Promise((resolvePromise) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(
      {
        socketPath: join(stateDir, "sock", "api.sock"),
        path,
        method,
        // a fresh connection each time: a kept-alive one may have been closed by the server meanwhile
        agent: false,
        ...(payload !== undefined && {
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        }),
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d
        })
        res.on("end", () => {
          try {
            resolvePromise(res.statusCode === 200 ? (JSON.parse(text) as A) : undefined)
          } catch {
            resolvePromise(undefined)
          }
        })
      },
    )
    req.on("error", () => resolvePromise(undefined))
    req.setTimeout(10_000, () => req.destroy())
    req.end(payload)
  })

export interface LogEntry {
  readonly id: number
  readonly timestamp: string
  readonly daemon_id: string
  readonly message: string
}

/** The stored log lines of a daemon, straight from the API (no CLI start-up). */
export const storedLogs = async (stateDir: string, id: string, lines = 100_000): Promise<Array<LogEntry>> =>
  (await apiPost<Array<LogEntry>>(stateDir, "/api/cli/logs", { ids: [id], lines })) ?? []

export interface DaemonEntry {
  readonly id: { readonly qualified: string; readonly namespace: string; readonly name: string }
  readonly pid: number | null
  readonly status: {
    readonly type: string
    readonly exit_code?: number | null
    readonly signal?: string | null
    readonly message?: string
  }
  readonly enabled: boolean
  readonly adhoc: boolean
  readonly source: string | null
  readonly run: string
  readonly dir: string
  readonly retry_count: number
  readonly resolved_port: ReadonlyArray<number>
  readonly active_port: number | null
}

/** The API's entry of one daemon (`GET /api/daemons/{id}`), undefined when unknown. */
export const daemonEntry = (stateDir: string, id: string): Promise<DaemonEntry | undefined> =>
  apiGet<DaemonEntry>(stateDir, `/api/daemons/${encodeURIComponent(id)}`)

const anyPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

/**
 * The user config (`home/.config/supervisor/config.toml`) of a proxy on `port` with `slugs`
 * (`name = { dir, daemon }`): plain HTTP unless `https`, more `[settings.proxy]` lines in `proxy`.
 */
export const proxyUserConfig = (
  port: number,
  slugs: Record<string, { readonly dir: string; readonly daemon?: string }>,
  options: { readonly https?: boolean; readonly proxy?: ReadonlyArray<string> } = {},
): string =>
  [
    "[settings.proxy]",
    "enable = true",
    ...(options.https === true ? [] : ["https = false"]),
    `port = ${port}`,
    ...(options.proxy ?? []),
    "[slugs]",
    ...Object.entries(slugs).map(
      ([name, s]) =>
        `${name} = { dir = "${s.dir}"${s.daemon === undefined ? "" : `, daemon = "${s.daemon}"`} }`,
    ),
    "",
  ].join("\n")

/** Ports handed out in this test file: a port freed a moment ago may be handed out again. */
const handedOut = new Set<number>()

/** A TCP port that was free on 127.0.0.1 a moment ago, and not handed out before in this file. */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = await anyPort()
    if (handedOut.has(port)) continue
    handedOut.add(port)
    return port
  }
}

/**
 * A command under a pseudo-terminal (`script`, as a user's terminal): its output so far, and its
 * exit. With `typing`, what `type` writes reaches the command as keys typed on that terminal.
 */
export const onTerminal = (
  argv: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string>; typing?: boolean },
): {
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly kill: () => void
  readonly type: (keys: string) => void
} => {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`
  const child = spawn("script", ["-qefc", argv.map(quote).join(" "), "/dev/null"], {
    cwd: options.cwd,
    env: { ...options.env, TERM: "xterm" },
    stdio: [options.typing === true ? "pipe" : "ignore", "pipe", "pipe"],
  })
  let out = ""
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  exited.then(() => child.stdin?.destroy())
  return {
    output: () => out,
    exited,
    kill: () => child.kill("SIGKILL"),
    type: (keys) => {
      child.stdin?.write(keys)
    },
  }
}

/** One HTTP request over TCP (a URL, or options with host, port, path, headers, agent): its status and body. */
export const httpAnswer = (target: string | RequestOptions): Promise<{ status: number; body: string }> =>
  new Promise((resolvePromise, reject) => {
    const req = request(target, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (c: string) => {
        body += c
      })
      res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })
