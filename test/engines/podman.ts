// Podman for the engine runs (`npm run test:engines`, docs/scale-out.md#a-real-engine-run): an
// image built from files of this machine (no registry), Podman's Docker-compatible API for
// docker-compose, and the healthcheck timers Podman leaves to systemd when systemd is not running.
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { dirname, join } from "node:path"

/** What must be installed, and how (Debian). */
export const INSTALL = "apt-get install -y podman runc docker-compose busybox-static"

/** A program's path on PATH, or undefined. */
export const which = (program: string): string | undefined => {
  const r = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" })
  return r.status === 0 ? r.stdout.trim() : undefined
}

/** The programs the run needs that are missing. */
export const missingPrograms = (): Array<string> =>
  ["podman", "docker-compose", "busybox"].filter((p) => which(p) === undefined)

export interface Podman {
  /** The environment of every podman and docker-compose call (its containers.conf, its API socket). */
  readonly env: Record<string, string>
  /** Runs podman; throws with its output on a non-zero exit. */
  readonly run: (args: ReadonlyArray<string>, input?: string) => string
  /** Podman's Docker-compatible API, for docker-compose; stopped with `close`. */
  readonly serve: () => Promise<void>
  readonly close: () => void
}

/** The hard limit of this process's `Max open files` or `Max processes` (/proc/self/limits), unless unlimited. */
const hardLimit = (name: string): string | undefined => {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((l) => l.startsWith(name))
  const hard = line?.slice(name.length).trim().split(/\s+/)[1]
  return hard === undefined || hard === "unlimited" ? undefined : hard
}

/**
 * Podman configured under `dir`: runc when installed (crun fails on a machine with hybrid
 * cgroups), and the containers' open-file and process limits at most this machine's hard limits
 * (Podman's default of 1048576 needs a privilege a container of CI does not have).
 */
export const podman = (dir: string): Podman => {
  const conf = join(dir, "containers.conf")
  const ulimits = (
    [
      ["nofile", hardLimit("Max open files")],
      // above 32768 runc was refused setting it in a CI container (EPERM), whatever the hard limit
      ["nproc", String(Math.min(Number(hardLimit("Max processes") ?? 32_768), 32_768))],
    ] as const
  ).flatMap(([key, hard]) => (hard === undefined ? [] : [`"${key}=${hard}:${hard}"`]))
  writeFileSync(
    conf,
    `[containers]\ndefault_ulimits = [${ulimits.join(", ")}]\n${which("runc") === undefined ? "" : '[engine]\nruntime = "runc"\n'}`,
  )
  const socket = join(dir, "podman.sock")
  const env = {
    ...(process.env as Record<string, string>),
    CONTAINERS_CONF: conf,
    DOCKER_HOST: `unix://${socket}`,
  }
  let service: ChildProcess | undefined
  const run = (args: ReadonlyArray<string>, input?: string) => {
    const r = spawnSync("podman", args, {
      env,
      encoding: "utf8",
      timeout: 120_000,
      ...(input === undefined ? {} : { input }),
    })
    if (r.status !== 0) throw new Error(`podman ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`)
    return r.stdout
  }
  return {
    env,
    run,
    serve: async () => {
      service = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], {
        env,
        stdio: "ignore",
      })
      const deadline = Date.now() + 30_000
      while (!(await pings(socket))) {
        if (Date.now() > deadline) throw new Error(`podman's API did not answer on ${socket} within 30 s`)
        await new Promise((r) => setTimeout(r, 100))
      }
    },
    close: () => {
      service?.kill("SIGTERM")
    },
  }
}

/** Whether the Docker-compatible API answers `GET /_ping` on `socket`. */
const pings = (socket: string): Promise<boolean> =>
  new Promise((resolve) => {
    const req = request({ socketPath: socket, path: "/_ping" }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on("error", () => resolve(false))
    req.end()
  })

/** Copies a program and the shared libraries it loads (`ldd`) into the root `root`. */
const copyProgram = (root: string, program: string, as: string): void => {
  mkdirSync(dirname(join(root, as)), { recursive: true })
  copyFileSync(program, join(root, as))
  const ldd = spawnSync("ldd", [program], { encoding: "utf8" }).stdout
  for (const lib of ldd.match(/\/\S+\.so[.\d]*/g) ?? []) {
    mkdirSync(dirname(join(root, lib)), { recursive: true })
    copyFileSync(lib, join(root, lib))
  }
}

/**
 * An image named `tag` holding this machine's Node and BusyBox (`sh`, `wget`, `nc` for the
 * healthchecks), imported from a directory with `podman import`: nothing is pulled.
 */
export const buildNodeImage = (p: Podman, dir: string, tag: string): void => {
  const root = join(dir, "rootfs")
  copyProgram(root, process.execPath, "usr/bin/node")
  copyProgram(root, which("busybox")!, "bin/busybox")
  for (const applet of ["sh", "wget", "nc", "true", "sleep", "cat"])
    if (!existsSync(join(root, "bin", applet))) symlinkSync("busybox", join(root, "bin", applet))
  mkdirSync(join(root, "etc"), { recursive: true })
  mkdirSync(join(root, "tmp"), { recursive: true })
  writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n")
  const tar = spawnSync("tar", ["-C", root, "-c", "."], { maxBuffer: 1 << 30 })
  if (tar.status !== 0) throw new Error(`tar of ${root} failed: ${tar.stderr}`)
  const r = spawnSync("podman", ["import", "--change", "ENV PATH=/usr/bin:/bin", "-", tag], {
    env: p.env,
    input: tar.stdout,
    timeout: 120_000,
  })
  if (r.status !== 0) throw new Error(`podman import failed: ${r.stderr}`)
}

/**
 * Runs each running container's healthcheck of the compose project every second, as the
 * systemd timer Podman sets up would: Podman schedules healthchecks only through systemd, which
 * a container of CI does not run. The verdicts are Podman's (`podman healthcheck run` runs the
 * exported check in the container). Returns the function that stops it.
 */
export const scheduleHealthchecks = (p: Podman, project: string): (() => void) => {
  if (existsSync("/run/systemd/system")) return () => {}
  let stopped = false
  const podmanAsync = (args: ReadonlyArray<string>) =>
    new Promise<string>((resolve) => {
      const child = spawn("podman", args, { env: p.env, stdio: ["ignore", "pipe", "ignore"] })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d
      })
      child.on("close", () => resolve(out))
      child.on("error", () => resolve(""))
    })
  void (async () => {
    while (!stopped) {
      const names = await podmanAsync([
        "ps",
        "--filter",
        `label=com.docker.compose.project=${project}`,
        "--filter",
        "status=running",
        "--format",
        "{{.Names}}",
      ])
      for (const name of names.split("\n").filter((n) => n !== ""))
        await podmanAsync(["healthcheck", "run", name])
      await new Promise((r) => setTimeout(r, 1000))
    }
  })()
  return () => {
    stopped = true
  }
}

/** What `podman inspect` says of a container's run. */
export interface ContainerState {
  readonly Status: string
  readonly ExitCode: number
  readonly StartedAt: string
  readonly FinishedAt: string
  readonly Health?: {
    readonly Status: string
    readonly Log: ReadonlyArray<{ readonly Start: string; readonly ExitCode: number }> | null
  }
}

/** The state of the container `name`. */
export const stateOf = (p: Podman, name: string): ContainerState => {
  const [info] = JSON.parse(p.run(["inspect", "--type", "container", name])) as Array<{
    State: ContainerState & { Healthcheck?: ContainerState["Health"] }
  }>
  const state = info!.State
  const health = state.Health ?? state.Healthcheck
  return health === undefined ? state : { ...state, Health: health }
}
