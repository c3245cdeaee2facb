/**
 * The `supervisor` command (dist/supervisor, scripts/entry.sh): `--version` without node, the
 * launcher found through a symlink, and the quick commands' node started without
 * NODE_EXTRA_CA_CERTS (which Node parses at start-up) while what they start, the supervisor and
 * its daemons, still gets it.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, environOf, makeDaemonSandbox, supervisorPids, waitFor } from "./harness.js"

const T = 30_000
const ENTRY = join(dirname(BIN), "supervisor")
const VERSION: string = JSON.parse(readFileSync(resolve(__dirname, "../../package.json"), "utf8")).version

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
})
afterEach(() => sb.destroy(), T)

const run = (args: ReadonlyArray<string>, env: Record<string, string>, cwd = sb.root) =>
  spawnSync(ENTRY, args, { cwd, env, encoding: "utf8", timeout: T })

/** A `node` first on PATH that writes the environment it starts with to `record`, then runs the real one. */
const recordingNode = (record: string): string => {
  const bin = sb.dir("fakebin")
  writeFileSync(join(bin, "node"), `#!/bin/sh\nenv > '${record}'\nexec '${process.execPath}' "$@"\n`)
  chmodSync(join(bin, "node"), 0o755)
  return `${bin}:${sb.env.PATH}`
}
const recorded = (record: string) =>
  new Map(
    readFileSync(record, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const),
  )

describe("the supervisor command", () => {
  it("answers --version without starting node", () => {
    const bin = sb.dir("nonode")
    writeFileSync(join(bin, "node"), "#!/bin/sh\nexit 99\n")
    chmodSync(join(bin, "node"), 0o755)
    const r = run(["--version"], { ...sb.env, PATH: `${bin}:${sb.env.PATH}` })
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(`${VERSION}\n`)
  })

  it("finds its launcher through symlinks, as a global install links it (absolute, then relative)", () => {
    symlinkSync(ENTRY, join(sb.dir("lib"), "supervisor"))
    const link = join(sb.dir("bin"), "supervisor")
    symlinkSync("../lib/supervisor", link)
    const r = spawnSync(link, ["schema"], { cwd: sb.root, env: sb.env, encoding: "utf8", timeout: T })
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toHaveProperty("$schema")
  })

  it("starts the quick commands' node without NODE_EXTRA_CA_CERTS, and only those", () => {
    const record = join(sb.root, "node-env")
    const env = { ...sb.env, PATH: recordingNode(record), NODE_EXTRA_CA_CERTS: "/etc/corp ca.pem" }
    const nodeEnv = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => {
      // none running (a command before may have started one): dist/quick runs node
      if (supervisorPids(sb.stateDir).length > 0) sb.cli(["supervisor", "stop"], sb.root)
      rmSync(record, { force: true })
      run(args, { ...env, ...extra })
      const e = recorded(record)
      return [e.get("NODE_EXTRA_CA_CERTS"), e.get("SUPERVISOR_EXTRA_CA_CERTS")]
    }
    // with no supervisor running, dist/quick (src/quick/native/quick.c) runs node for `list
    // --json`, `start` and `stop`, with the environment the script made
    for (const quick of [
      ["list", "--json"],
      ["ls"],
      ["stop", "--all"],
      ["start", "x"],
      ["logs", "x"],
      ["cd"],
    ])
      expect(nodeEnv(quick), quick.join(" ")).toEqual([undefined, "/etc/corp ca.pem"])
    // the CLI's own commands, and any command for a remote supervisor (its TLS may need them)
    expect(nodeEnv(["schema"])).toEqual(["/etc/corp ca.pem", undefined])
    expect(nodeEnv(["list", "--json", "--url", "https://127.0.0.1:1"])).toEqual([
      "/etc/corp ca.pem",
      undefined,
    ])
    expect(nodeEnv(["list", "--json", "--url=https://127.0.0.1:1"])).toEqual(["/etc/corp ca.pem", undefined])
    expect(nodeEnv(["list", "--json"], { SUPERVISOR_URL: "https://127.0.0.1:1" })).toEqual([
      "/etc/corp ca.pem",
      undefined,
    ])
    // nothing to hand over: nothing changes
    const { NODE_EXTRA_CA_CERTS: _, ...without } = env
    rmSync(record, { force: true })
    run(["logs", "x"], without)
    expect(recorded(record).has("NODE_EXTRA_CA_CERTS")).toBe(false)
    expect(recorded(record).has("SUPERVISOR_EXTRA_CA_CERTS")).toBe(false)
  }, 60_000)

  it("hands NODE_EXTRA_CA_CERTS back to the supervisor it starts and to the daemons", async () => {
    const ca = join(sb.root, "corp-ca.pem")
    const proj = sb.project(
      "app",
      `[daemons.web]\nrun = "echo \\"ca=[$NODE_EXTRA_CA_CERTS][\${SUPERVISOR_EXTRA_CA_CERTS-unset}]\\"; exec sleep 300"\nready_delay = 0\n`,
    )
    const env = { ...sb.env, NODE_EXTRA_CA_CERTS: ca }
    const started = run(["start", "web"], env, proj)
    expect(started.status, started.stderr).toBe(0)
    const logs = await waitFor("the daemon's line", () => {
      const r = run(["logs", "web", "--raw", "--no-timestamp"], env, proj)
      return r.stdout.includes("ca=") ? r.stdout : undefined
    })
    expect(logs).toContain(`ca=[${ca}][unset]`)
    const [pid] = supervisorPids(sb.stateDir)
    expect(pid).toBeDefined()
    const supervisorEnv = environOf(pid ?? 0)
    expect(supervisorEnv.get("NODE_EXTRA_CA_CERTS")).toBe(ca)
    expect(supervisorEnv.has("SUPERVISOR_EXTRA_CA_CERTS")).toBe(false)
  }, 60_000)
})
