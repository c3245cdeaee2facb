/**
 * dist/quick (src/quick/native/quick.c): `list --json`, and `start` and `stop` of their simple
 * forms, answered by the running supervisor (POST /api/cli/quick, src/api/quickAnswer.ts) without
 * starting Node. Run as the installed command runs them, through dist/supervisor, with a `node`
 * first on PATH that notes each time it runs: whether the CLI ran is then known. Each answer is
 * compared with the CLI's own (`node dist/supervisor.cjs`).
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { VERSION, VERSION_HEADER } from "../../src/domain/version.js"
import { BIN, type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 60_000
const ENTRY = resolve(dirname(BIN), "supervisor")
const QUICK = resolve(dirname(BIN), "quick")

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

const CONFIG = `[daemons.a]\nrun = "exec sleep 300"\nready_delay = 0\n\n[daemons.b]\nrun = "exec sleep 300"\nready_delay = 0\n`

/** The sandbox with a `node` on PATH that appends its arguments to a file, then runs Node. */
const withNoted = (box: DaemonSandbox) => {
  const bin = box.dir("bin")
  const notes = join(box.root, "node-runs")
  writeFileSync(
    join(bin, "node"),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(notes)}\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
  )
  chmodSync(join(bin, "node"), 0o755)
  const env = { ...box.env, PATH: `${bin}:${process.env.PATH ?? ""}` }
  /** dist/supervisor ARGS, and whether node ran for it. */
  const run = (args: ReadonlyArray<string>, cwd: string, extra: Record<string, string> = {}) => {
    rmSync(notes, { force: true })
    const r = spawnSync(ENTRY, args, { cwd, env: { ...env, ...extra }, encoding: "utf8", timeout: 30_000 })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, node: existsSync(notes) }
  }
  /** The same on a terminal (util-linux's `script`): whether node ran, and what it ran. */
  const onTerminal = (args: ReadonlyArray<string>, cwd: string, extra: Record<string, string> = {}) => {
    rmSync(notes, { force: true })
    const command = [ENTRY, ...args].map((a) => `'${a}'`).join(" ")
    const r = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd,
      env: { ...env, ...extra },
      encoding: "utf8",
      timeout: 30_000,
    })
    return { status: r.status, node: existsSync(notes) ? readFileSync(notes, "utf8") : "" }
  }
  return { run, onTerminal, env }
}

const quickPost = async (stateDir: string, body: unknown, version = VERSION) => {
  const { request } = await import("node:http")
  return new Promise<{ status: number; body: string }>((ok, fail) => {
    const payload = JSON.stringify(body)
    const req = request(
      {
        socketPath: join(stateDir, "sock", "api.sock"),
        path: "/api/cli/quick",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", [VERSION_HEADER]: version },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d
        })
        res.on("end", () => ok({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on("error", fail)
    req.end(payload)
  })
}

describe("dist/quick", () => {
  it("is built (npm run build, with the machine's C compiler)", () => {
    expect(existsSync(QUICK), `${QUICK} is missing: is there a cc?`).toBe(true)
  })

  it(
    "list --json, stop and start --quiet/--json: the supervisor's answers, the CLI's output, no node",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const { run } = withNoted(sb)
      // no supervisor yet: the CLI runs, and starts it
      const first = run(["start", "--all", "--quiet"], cwd)
      expect(first).toMatchObject({ status: 0, stdout: "", node: true })

      const listed = run(["list", "--json"], cwd)
      expect(listed).toMatchObject({ status: 0, node: false })
      const cli = sb.cli(["list", "--json"], cwd)
      expect(listed.stdout).toBe(cli.stdout)
      const entries = JSON.parse(listed.stdout) as Array<{ id: { name: string }; status: { type: string } }>
      expect(entries.map((e) => [e.id.name, e.status.type])).toEqual([
        ["a", "running"],
        ["b", "running"],
      ])
      expect(run(["ls", "--json"], cwd)).toMatchObject({ stdout: cli.stdout, node: false })

      expect(run(["stop", "a"], cwd)).toEqual({
        status: 0,
        stdout: "✓ app/a stopped\n",
        stderr: "",
        node: false,
      })
      expect(run(["stop", "a", "--json"], cwd)).toMatchObject({ status: 0, node: false })
      expect(JSON.parse(run(["stop", "a", "--json"], cwd).stdout)).toEqual([
        { id: "app/a", was_running: false, killed: false },
      ])
      const started = run(["start", "a", "--json"], cwd)
      expect(started).toMatchObject({ status: 0, node: false })
      expect((JSON.parse(started.stdout) as Array<{ _tag: string; id: string }>)[0]).toMatchObject({
        _tag: "Ready",
        id: "app/a",
      })
      expect(run(["stop", "--all", "--quiet"], cwd)).toEqual({
        status: 0,
        stdout: "",
        stderr: "",
        node: false,
      })
      expect(run(["stop", "--all"], cwd)).toEqual({
        status: 0,
        stdout: "no daemon is running: nothing to stop\n",
        stderr: "",
        node: false,
      })
      expect(run(["s", "--all", "-q"], cwd)).toMatchObject({ status: 0, stdout: "", node: false })
    },
    T,
  )

  it(
    "a failed start: the CLI's lines and status",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", `${CONFIG}\n[daemons.bad]\nrun = "echo no such luck; exit 3"\n`)
      const { run } = withNoted(sb)
      expect(run(["start", "a", "--quiet"], cwd)).toMatchObject({ status: 0, node: true })
      const quick = run(["start", "bad", "--quiet"], cwd)
      expect(quick.node).toBe(false)
      const cli = sb.cli(["start", "bad", "--quiet"], cwd)
      expect(quick.status).toBe(cli.status)
      expect(quick.status).toBe(1)
      expect(quick.stderr).toBe(cli.stderr)
      expect(quick.stderr).toContain("no such luck")
    },
    T,
  )

  it(
    "the CLI answers what the supervisor leaves to it: other forms, colours, warnings, an unknown ID",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const { run, onTerminal } = withNoted(sb)
      expect(run(["start", "--all", "--quiet"], cwd)).toMatchObject({ status: 0 })
      // on a terminal `stop` prints in colour: the CLI's; `list --json` has none to print
      expect(onTerminal(["stop", "a"], cwd, { NO_COLOR: "" })).toMatchObject({
        status: 0,
        node: expect.stringContaining(" stop a"),
      })
      expect(onTerminal(["start", "a", "-q"], cwd, { NO_COLOR: "1" })).toEqual({ status: 0, node: "" })
      expect(onTerminal(["list", "--json"], cwd)).toEqual({ status: 0, node: "" })
      // a form of its own (the table), a flag the quick forms do not take
      expect(run(["list"], cwd)).toMatchObject({ status: 0, node: true })
      expect(run(["stop", "a", "--group", "g", "--force"], cwd).node).toBe(true)
      // an ID the CLI complains about: nothing stopped, the CLI's message
      const unknown = run(["stop", "nope"], cwd)
      expect(unknown.node).toBe(true)
      expect(unknown.status).toBe(sb.cli(["stop", "nope"], cwd).status)
      // start without --quiet or --json draws its progress: the CLI's
      expect(run(["start", "a"], cwd).node).toBe(true)
      // a configuration with warnings: the CLI prints them
      writeFileSync(
        join(cwd, "supervisor.toml"),
        `${CONFIG}\n[daemons.c]\nrun = "sleep 1"\nunknown_key = 1\n`,
      )
      const warned = run(["list", "--json"], cwd)
      expect(warned.node).toBe(true)
      expect(warned.stderr).toContain("unknown_key")
      // a remote supervisor is the CLI's to reach
      expect(run(["list", "--json", "--url", "http://127.0.0.1:1"], cwd).node).toBe(true)
    },
    T,
  )

  it(
    "POST /api/cli/quick: 409 Fallback for another version or a form it leaves to the CLI, 400 for a bad body",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      const env = { HOME: sb.env.HOME ?? "", SUPERVISOR_STATE_DIR: sb.stateDir }
      const ok = await quickPost(sb.stateDir, { argv: ["list", "--json"], cwd, env })
      expect(ok.status).toBe(200)
      const answer = JSON.parse(ok.body) as { exit: number; stdout: string; stderr: string }
      expect(Object.keys(answer)).toEqual(["exit", "stdout", "stderr"])
      expect(answer.exit).toBe(0)
      expect(JSON.parse(answer.stdout)).toHaveLength(2)
      const other = await quickPost(sb.stateDir, { argv: ["list", "--json"], cwd, env }, "0.0.0-other")
      expect(other.status).toBe(409)
      expect(JSON.parse(other.body)).toMatchObject({ _tag: "Fallback" })
      const form = await quickPost(sb.stateDir, { argv: ["restart", "a"], cwd, env })
      expect(form.status).toBe(409)
      expect((await quickPost(sb.stateDir, { argv: "list" })).status).toBe(400)
      // nothing was stopped by what it refused
      const list = JSON.parse(sb.cli(["list", "--json"], cwd).stdout) as Array<{ status: { type: string } }>
      expect(list.map((d) => d.status.type)).toEqual(["running", "running"])
    },
    T,
  )
})
