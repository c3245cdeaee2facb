/**
 * Known projects and their live configuration, through a real supervisor started by the built
 * CLI: a `[namespaces]` entry of the user config, a registered project whose file is edited while
 * the supervisor runs (a new daemon listed without a restart; an invalid edit keeps the last good
 * configuration and is reported), and forgetting a namespace.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiDelete, apiGet, apiPost, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 40_000
let sb: DaemonSandbox

interface Entry {
  readonly id: { readonly qualified: string }
  readonly status: { readonly type: string }
  readonly run: string
}
interface Namespace {
  readonly name: string
  readonly dir: string | null
  readonly sources: ReadonlyArray<string>
  readonly daemons: ReadonlyArray<string>
  readonly problem: string | null
}

const entries = async () => (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")) ?? []
const entry = async (id: string) => (await entries()).find((e) => e.id.qualified === id)
const namespace = async (name: string) =>
  ((await apiGet<Array<Namespace>>(sb.stateDir, "/api/namespaces")) ?? []).find((n) => n.name === name)

const daemon = (name: string, run = `exec sleep ${300 + name.length}`) =>
  `[daemons.${name}]\nrun = "${run}"\nready_delay = 0\n`

beforeAll(() => {
  sb = makeDaemonSandbox()
  const known = sb.project("known", daemon("a"))
  sb.write({ "home/.config/supervisor/config.toml": `[namespaces]\nknown = { dir = "${known}" }\n` })
  const started = sb.cli(["supervisor", "start"], sb.root)
  expect(started.status, started.stderr).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("known projects and a live configuration registry (e2e)", () => {
  it("a [namespaces] entry of the user config makes its project known: its daemons are listed", async () => {
    expect(await entry("known/a")).toMatchObject({ status: { type: "available" } })
    expect(await namespace("known")).toMatchObject({
      dir: join(sb.root, "known"),
      sources: ["config"],
      daemons: ["known/a"],
      problem: null,
    })
  })

  it(
    "a daemon added to a registered project's file is listed without a restart; an invalid edit keeps the old daemons, is shown by supervisor status, the log and GET /api/namespaces; DELETE forgets it",
    async () => {
      const proj = sb.project("reg", daemon("web"))
      const file = join(proj, "supervisor.toml")
      expect(await apiPost(sb.stateDir, "/api/namespaces", { dir: proj })).toMatchObject({ ok: true })
      expect(await entry("reg/web")).toMatchObject({ status: { type: "available" } })
      expect(await apiPost(sb.stateDir, "/api/daemons/reg%2Fweb/start", {})).toEqual({ ok: true })

      writeFileSync(file, `${daemon("web")}\n${daemon("worker")}`)
      await waitFor("reg/worker in GET /api/daemons", async () => (await entry("reg/worker"))?.status.type)
      expect(await entry("reg/worker")).toMatchObject({ status: { type: "available" } })

      // line 6: `run = 3`
      writeFileSync(file, `${daemon("web")}\n[daemons.worker]\nrun = 3\n`)
      const broken = await waitFor(
        "the problem in GET /api/namespaces",
        async () => (await namespace("reg"))?.problem,
      )
      expect(broken).toContain(`${file}:6: daemons.worker.run:`)
      // the last good configuration stays in force; nothing running is stopped
      expect(await entry("reg/worker")).toMatchObject({
        status: { type: "available" },
        run: "exec sleep 306",
      })
      expect(await entry("reg/web")).toMatchObject({ status: { type: "running" } })

      const status = sb.cli(["supervisor", "status"], sb.root)
      expect(status.status).toBe(0)
      expect(status.stdout).toContain(`reg (${proj}): invalid, the last good configuration stays in force`)
      expect(status.stdout).toContain(`${file}:6: daemons.worker.run:`)
      const asJson = JSON.parse(sb.cli(["supervisor", "status", "--json"], sb.root).stdout) as {
        config_problems: Array<{ dir: string; namespace: string | null; problem: string }>
      }
      expect(asJson.config_problems).toEqual([
        { dir: proj, namespace: "reg", problem: expect.stringContaining(`${file}:6: daemons.worker.run:`) },
      ])
      const log = readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
      expect(log).toContain("its last good configuration stays in force")
      expect(log).toContain(`${file}:6: daemons.worker.run:`)

      // fixed: the problem is gone
      writeFileSync(file, daemon("web"))
      await waitFor("the problem to clear", async () => (await namespace("reg"))?.problem === null)
      expect(await entry("reg/worker")).toBeUndefined()

      expect(await apiPost(sb.stateDir, "/api/daemons/reg%2Fweb/stop", {})).toEqual({ ok: true })
      expect(await apiDelete(sb.stateDir, "/api/namespaces/reg")).toMatchObject({
        ok: true,
        namespace: { name: "reg", dir: proj },
      })
      expect(await namespace("reg")).toMatchObject({ dir: null, sources: [] }) // only its stopped daemon is left
      writeFileSync(file, `${daemon("web")}\n${daemon("late")}`)
      expect(await apiDelete(sb.stateDir, "/api/namespaces/reg")).toMatchObject({ ok: false })
      expect(await entry("reg/late")).toBeUndefined()
    },
    T,
  )
})
