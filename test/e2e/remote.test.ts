/**
 * The CLI against a remote supervisor (docs/remote.md): a supervisor whose API listener serves
 * HTTPS on a second loopback address (127.0.0.2, a port the system picks) in one sandbox HOME,
 * and a CLI in another HOME, with nothing local, given `--url`, the token and the CA file.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadOrCreateCa } from "../../src/proxy/tls/ca.js"
import {
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  makeSandbox,
  runCli,
  runCliAsync,
  type Sandbox,
  STACK_LINE,
  spawnCli,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 60_000

let srv: DaemonSandbox
let proj: string
let client: Sandbox
let url: string
let token: string
let ca: string

/** The client's environment: its own HOME, the token in SUPERVISOR_API_TOKEN. */
const clientEnv = (extra: Record<string, string> = {}) => ({
  ...client.env,
  SUPERVISOR_API_TOKEN: token,
  ...extra,
})
const remote = (args: ReadonlyArray<string>, env = clientEnv()) =>
  runCli(["--url", url, "--ca", ca, ...args], { cwd: client.root, env })
const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "")

beforeAll(async () => {
  srv = makeDaemonSandbox()
  mkdirSync(srv.env.SUPERVISOR_CONFIG_DIR!, { recursive: true })
  writeFileSync(
    join(srv.env.SUPERVISOR_CONFIG_DIR!, "config.toml"),
    '[settings.api]\nauto_start = true\ntls = true\nbind_address = "127.0.0.2"\nbind_port = 0\n',
  )
  // prints each message dropped into msg.txt, then removes it
  proj = srv.project(
    "app",
    '[daemons.web]\nrun = "while true; do if [ -f msg.txt ]; then cat msg.txt; rm msg.txt; fi; sleep 0.05; done"\nready_delay = 0\n',
  )
  const started = srv.cli(["start", "web"], proj)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(srv.cli(["supervisor", "status", "--json"], proj).stdout) as { api_url: string }
  url = status.api_url
  expect(url).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/)
  token = srv.cli(["supervisor", "token"], proj).stdout.trim()
  expect(token).toMatch(/^[0-9a-f]{64}$/)
  client = makeSandbox()
  // what a user copies from the supervisor's machine
  ca = join(client.root, "ca.pem")
  copyFileSync(join(srv.stateDir, "proxy", "ca.pem"), ca)
}, T)

afterAll(() => {
  srv?.destroy()
  client?.cleanup()
})

describe("the CLI with --url against a supervisor over HTTPS", () => {
  it(
    "list shows the remote supervisor's daemons; nothing is started or written in the client's HOME",
    () => {
      const r = remote(["list"])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^app\/web\s+running\s+\d+/m)
      // the token from a file, the URL and the CA from the environment
      writeFileSync(join(client.root, "token"), `${token}\n`)
      const viaEnv = runCli(["list", "--json"], {
        cwd: client.root,
        env: {
          ...client.env,
          SUPERVISOR_URL: url,
          SUPERVISOR_CA: ca,
          SUPERVISOR_API_TOKEN_FILE: join(client.root, "token"),
        },
      })
      expect(viaEnv.status, viaEnv.stderr).toBe(0)
      expect(
        (JSON.parse(viaEnv.stdout) as Array<{ id: { qualified: string } }>).map((e) => e.id.qualified),
      ).toEqual(["app/web"])
      expect(existsSync(join(client.home, ".local"))).toBe(false)
    },
    T,
  )

  it(
    "logs -f follows the remote daemon: a new line shows",
    async () => {
      // a line in the history first: once the follow prints it, it is connected
      const before = `remote-before-${process.pid}`
      writeFileSync(join(proj, "msg.txt"), `${before}\n`)
      await waitFor(
        "the first line stored",
        async () => (await storedLogs(srv.stateDir, "app/web")).some((e) => e.message === before),
        { timeout: 20_000 },
      )
      const follow = spawnCli(["--url", url, "--ca", ca, "logs", "web", "-f"], {
        cwd: client.root,
        env: clientEnv(),
      })
      try {
        await waitFor(`"${before}" in the follow's history`, () => follow.stdout().includes(before), {
          timeout: 20_000,
        })
        const message = `remote-line-${process.pid}`
        writeFileSync(join(proj, "msg.txt"), `${message}\n`)
        await waitFor(`"${message}" in the follow`, () => follow.stdout().includes(message), {
          timeout: 20_000,
        })
        expect(follow.stderr()).toBe("")
      } finally {
        follow.child.kill("SIGTERM")
        await follow.exited
      }
    },
    T,
  )

  it(
    "stop and start by ID act on the remote supervisor",
    async () => {
      const stopped = remote(["stop", "web"])
      expect(stopped.status, stopped.stderr).toBe(0)
      expect(stopped.stdout).toContain("app/web stopped")
      expect((await daemonEntry(srv.stateDir, "app/web"))?.status.type).toBe("stopped")
      const started = remote(["start", "app/web"])
      expect(started.status, started.stderr).toBe(0)
      expect(started.stdout).toMatch(/app\/web is running \(pid \d+\)/)
      expect((await daemonEntry(srv.stateDir, "app/web"))?.status.type).toBe("running")
      const status = remote(["status", "web"])
      expect(status.status, status.stderr).toBe(0)
      expect(status.stdout).toContain("Status: running")
    },
    T,
  )

  it(
    "events follows the remote supervisor's event stream: a stop from another remote CLI shows",
    async () => {
      const follow = spawnCli(["--url", url, "--ca", ca, "events", "web", "--json", "--since", "0"], {
        cwd: client.root,
        env: clientEnv(),
      })
      try {
        // connected once the retained events (the start of app/web) came
        await waitFor("the retained events", () => follow.stdout().includes('"app/web"'), { timeout: 20_000 })
        const before = follow.stdout().length
        const stopped = remote(["stop", "web"])
        expect(stopped.status, stopped.stderr).toBe(0)
        await waitFor("the stop's event", () => /"to":\s*"stopped"/.test(follow.stdout().slice(before)), {
          timeout: 20_000,
        })
        expect(follow.stderr()).toBe("")
      } finally {
        follow.child.kill("SIGTERM")
        await follow.exited
        const started = remote(["start", "web"])
        expect(started.status, started.stderr).toBe(0)
      }
    },
    T,
  )

  it(
    "settings reads the remote supervisor's own settings (a Settings command), not this HOME's",
    () => {
      const tls = remote(["settings", "get", "api.tls"])
      expect(tls.status, tls.stderr).toBe(0)
      expect(tls.stdout.trim()).toBe("true")
      const listed = remote(["settings", "list", "--json"])
      expect(listed.status, listed.stderr).toBe(0)
      expect(
        (JSON.parse(listed.stdout) as Array<{ key: string; value?: unknown }>).find(
          (e) => e.key === "api.bind_address",
        )?.value,
      ).toBe("127.0.0.2")
      // writing one stays refused: it writes this machine's files
      const set = remote(["settings", "set", "logs.log_format", "json"])
      expect(set.status).toBe(2)
    },
    T,
  )

  it(
    "a wrong token fails with one line naming the URL and the fix",
    () => {
      const r = remote(["list"], clientEnv({ SUPERVISOR_API_TOKEN: "0".repeat(64) }))
      expect(r.status).toBe(1)
      expect(r.stdout).toBe("")
      expect(lines(r.stderr)).toEqual([
        `error: the supervisor at ${url} refused the token (401): check SUPERVISOR_API_TOKEN (or --token-file); \`supervisor supervisor token\` on its machine prints it`,
      ])
    },
    T,
  )

  it(
    "the CA of another sandbox, or none, fails with one line naming the URL and --ca",
    async () => {
      const other = makeSandbox()
      try {
        const otherCa = loadOrCreateCa(join(other.root, "state")).paths.cert
        const r = runCli(["--url", url, "--ca", otherCa, "list"], { cwd: client.root, env: clientEnv() })
        expect(r.status).toBe(1)
        expect(r.stderr).not.toMatch(STACK_LINE)
        expect(lines(r.stderr)).toHaveLength(1)
        expect(r.stderr).toMatch(
          new RegExp(
            `^error: cannot verify the certificate of the supervisor at ${url.replaceAll(".", "\\.")} \\(\\w+\\): give its CA with --ca FILE`,
          ),
        )
        const none = await runCliAsync(["--url", url, "list"], { cwd: client.root, env: clientEnv() })
        expect(none.status).toBe(1)
        expect(lines(none.stderr)).toHaveLength(1)
        expect(none.stderr).toContain("--ca FILE")
      } finally {
        other.cleanup()
      }
    },
    T,
  )

  it(
    "an unreachable URL fails with one line",
    () => {
      const r = runCli(["--url", "https://127.0.0.2:1", "list"], { cwd: client.root, env: clientEnv() })
      expect(r.status).toBe(1)
      expect(lines(r.stderr)).toEqual([
        "error: cannot reach the supervisor at https://127.0.0.2:1: connect ECONNREFUSED 127.0.0.2:1; check the address, and that its API listener is on (settings.api.auto_start)",
      ])
    },
    T,
  )

  it(
    "commands that need the local files say so in one line, exit 2",
    () => {
      for (const args of [
        ["config", "show"],
        ["settings", "set", "logs.log_format", "json"],
        ["activate", "bash"],
      ]) {
        const r = remote(args)
        expect(r.status, args.join(" ")).toBe(2)
        expect(lines(r.stderr)).toEqual([
          `error: \`supervisor ${args[0]}\` needs the local files of the supervisor's machine (its configuration, state directory, shell or processes): it does not work with --url (SUPERVISOR_URL); run it there, or unset SUPERVISOR_URL`,
        ])
      }
      expect(existsSync(join(client.home, ".local"))).toBe(false)
    },
    T,
  )
})
