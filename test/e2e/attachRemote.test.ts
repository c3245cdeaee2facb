/**
 * `supervisor attach` against a supervisor at a URL (docs/remote.md): its API listener serves HTTPS
 * on 127.0.0.2 with its own CA; the CLI in another HOME, given `--url`, the token and the CA,
 * types into a `pty = true` REPL through the WebSocket and detaches; a wrong token is one line,
 * exit 1. With pipes for input and output (no terminal), and a SIGTERM that detaches.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  makeSandbox,
  runCliAsync,
  type Sandbox,
  spawnCli,
  waitFor,
} from "./harness.js"

const T = 60_000

let srv: DaemonSandbox
let client: Sandbox
let url: string
let token: string
let ca: string

beforeAll(() => {
  srv = makeDaemonSandbox()
  mkdirSync(srv.env.SUPERVISOR_CONFIG_DIR!, { recursive: true })
  writeFileSync(
    join(srv.env.SUPERVISOR_CONFIG_DIR!, "config.toml"),
    '[settings.api]\nauto_start = true\ntls = true\nbind_address = "127.0.0.2"\nbind_port = 0\n',
  )
  const proj = srv.project("app", '[daemons.repl]\nrun = "exec python3 -q -i"\npty = true\n')
  const started = srv.cli(["start", "repl"], proj)
  expect(started.status, started.stderr).toBe(0)
  url = (JSON.parse(srv.cli(["supervisor", "status", "--json"], proj).stdout) as { api_url: string }).api_url
  token = srv.cli(["supervisor", "token"], proj).stdout.trim()
  client = makeSandbox()
  ca = join(client.root, "ca.pem")
  copyFileSync(join(srv.stateDir, "proxy", "ca.pem"), ca)
}, T)

afterAll(() => {
  srv?.destroy()
  client?.cleanup()
})

const remoteAttach = (withToken: string) =>
  spawnCli(["--url", url, "--ca", ca, "attach", "app/repl"], {
    cwd: client.root,
    env: { ...client.env, SUPERVISOR_API_TOKEN: withToken },
    stdin: true,
  })

describe("supervisor attach with --url against a supervisor over HTTPS", () => {
  it(
    "types into the REPL and reads its answer, then detaches on the detach byte, exit 0",
    async () => {
      const pid = (await daemonEntry(srv.stateDir, "app/repl"))?.pid
      const a = remoteAttach(token)
      a.child.stdin!.write("7*6\r")
      await waitFor("the answer", () => /^42\r?$/m.test(a.stdout()), { timeout: 20_000 }).catch(
        (e: Error) => {
          throw new Error(`${e.message}\nstdout: ${a.stdout()}\nstderr: ${a.stderr()}`)
        },
      )
      a.child.stdin!.write(Buffer.from([0x1d]))
      const end = await a.exited
      expect({ code: end.code, stderr: a.stderr() }).toEqual({
        code: 0,
        stderr: "detached from app/repl (still running)\n",
      })
      expect((await daemonEntry(srv.stateDir, "app/repl"))?.pid).toBe(pid)
    },
    T,
  )

  it(
    "detaches on SIGTERM, exit 143, the daemon still running",
    async () => {
      const a = remoteAttach(token)
      a.child.stdin!.write("'ab' + 'cd'\r")
      await waitFor("the answer", () => a.stdout().includes("'abcd'"), { timeout: 20_000 })
      a.child.kill("SIGTERM")
      const end = await a.exited
      expect({ code: end.code, stderr: a.stderr() }).toEqual({
        code: 143,
        stderr: "detached from app/repl on SIGTERM (still running)\n",
      })
      expect((await daemonEntry(srv.stateDir, "app/repl"))?.status.type).toBe("running")
    },
    T,
  )

  it(
    "says in one line that the token was refused, exit 1",
    async () => {
      const r = await runCliAsync(["--url", url, "--ca", ca, "attach", "app/repl"], {
        cwd: client.root,
        env: { ...client.env, SUPERVISOR_API_TOKEN: "wrong" },
      })
      expect(r.status).toBe(1)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toContain("refused the token (401)")
    },
    T,
  )
})
