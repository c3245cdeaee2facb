/**
 * Every template name through the built CLI with real processes (docs/templates.md): a daemon
 * whose `run`, `env`, `ready_cmd` and `on_ready` hook use each name writes what it was given to a
 * file, and the files hold the rendered values; braces that are not templates reach the shell as
 * written; `config validate` refuses an unknown name with its file, line, key and the closest name.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { docExamples } from "./docExamples.js"
import {
  type CliResult,
  type DaemonSandbox,
  freePort,
  makeDaemonSandbox,
  proxyUserConfig,
  STACK_LINE,
  waitFor,
} from "./harness.js"

const T = 40_000
const NODE = process.execPath

// Writes `<kind>.json` in its directory: its arguments and its T_* variables; `run` then stays up.
const DUMP_JS = `
const fs = require("node:fs")
const [kind, ...args] = process.argv.slice(2)
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("T_")))
fs.writeFileSync(kind + ".tmp", JSON.stringify({ args, env }))
fs.renameSync(kind + ".tmp", kind + ".json")
if (kind === "run") setInterval(() => {}, 1 << 30)
`

/** Every template name, in the order of the rendered values below. */
const NAMES = [
  "daemon.id",
  "daemon.name",
  "daemon.namespace",
  "daemon.dir",
  "daemon.port",
  "daemon.ports[1]",
  "daemons.web.port",
  "daemons.web.proxy_url",
  "env.TPL_GREETING",
  "settings.proxy.tld",
  "settings.proxy.port",
]
/** The names as shell arguments, each quoted. */
const ARGS = NAMES.map((n) => `'{{ ${n} }}'`).join(" ")
/** Each name as a T_<n> variable of the daemon's env table. */
const ENV = NAMES.map((n, i) => `T_${i} = ${JSON.stringify(`{{ ${n} }}`)}`).join(", ")
/** Braces that are no templates: the shell gets them as written (and expands ${...} itself). */
const OTHER_BRACES = `'{{.Names}}' '{.a}' '{}' "\${TPL_GREETING}" '{{ print }}'`

let sb: DaemonSandbox
let dir: string
let proxyPort: number
let webPort: number
let apiPorts: [number, number]

const show = (r: CliResult) => `status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`
const dumped = (kind: string) =>
  JSON.parse(readFileSync(join(dir, `${kind}.json`), "utf8")) as {
    args: Array<string>
    env: Record<string, string>
  }

beforeAll(async () => {
  ;[proxyPort, webPort] = [await freePort(), await freePort()]
  apiPorts = [await freePort(), await freePort()]
  sb = makeDaemonSandbox()
  sb.env.TPL_GREETING = "hello templates"
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
  const listen = `exec "${NODE}" -e "require('net').createServer((s) => s.end()).listen(Number(process.env.PORT), '127.0.0.1')"`
  dir = sb.project(
    "tpl",
    [
      "[daemons.web]",
      `run = ${JSON.stringify(listen)}`,
      `port = ${webPort}`,
      'ready_port = "{{ daemon.port }}"',
      "",
      "[daemons.api]",
      `run = ${JSON.stringify(`exec "${NODE}" dump.cjs run ${ARGS} '{{ env.T_1 }}' '{{ env.PORT1 }}' ${OTHER_BRACES}`)}`,
      `port = [${apiPorts[0]}, ${apiPorts[1]}]`,
      `env = { ${ENV}, T_BELOW = "{{ env.TPL_GREETING }}!" }`,
      'depends = ["web"]',
      `ready_cmd = ${JSON.stringify(`"${NODE}" dump.cjs ready ${ARGS} '{{ env.T_0 }}'`)}`,
      "",
      "[daemons.api.hooks]",
      `on_ready = ${JSON.stringify(`"${NODE}" dump.cjs hook ${ARGS} "$SUPERVISOR_DAEMON_ID" ${OTHER_BRACES}`)}`,
      "",
    ].join("\n"),
  )
  sb.write({
    "tpl/dump.cjs": DUMP_JS,
    "home/.config/supervisor/config.toml": proxyUserConfig(proxyPort, { shop: { dir, daemon: "web" } }),
  })
}, T)

afterAll(() => {
  sb?.destroy()
}, T)

describe("templates through the built CLI", () => {
  it(
    "run, env, ready_cmd and on_ready render every name; other braces reach the shell as written",
    async () => {
      const r = sb.cli(["start", "api"], dir)
      expect(r.status, show(r)).toBe(0)
      const values = [
        "tpl/api",
        "api",
        "tpl",
        dir,
        String(apiPorts[0]),
        String(apiPorts[1]),
        String(webPort),
        `http://shop.localhost:${proxyPort}`,
        "hello templates",
        "localhost",
        String(proxyPort),
      ]
      const others = ["{{.Names}}", "{.a}", "{}", "hello templates", "{{ print }}"]
      // the readiness check is its own process: ready says nothing of when `run` wrote its file
      await waitFor("the run's file", () => existsSync(join(dir, "run.json")))
      const run = dumped("run")
      // `{{ env.T_1 }}` in run reads the daemon's final environment: its rendered env and PORT1
      expect(run.args).toEqual([...values, "api", String(apiPorts[1]), ...others])
      expect(run.env).toEqual({
        ...Object.fromEntries(values.map((v, i) => [`T_${i}`, v])),
        // in an env value, `{{ env.VAR }}` reads the environment the table is laid over
        T_BELOW: "hello templates!",
      })
      // the readiness check ran (and passed) with its templates rendered, in the daemon's environment
      const ready = dumped("ready")
      expect(ready.args).toEqual([...values, "tpl/api"])
      expect(ready.env.T_3).toBe(dir)
      // the hook runs in the background once the daemon is ready
      await waitFor("the on_ready hook's file", () => existsSync(join(dir, "hook.json")))
      const hook = dumped("hook")
      expect(hook.args).toEqual([...values, "tpl/api", ...others])
      expect(hook.env.T_7).toBe(`http://shop.localhost:${proxyPort}`)
    },
    T,
  )

  it(
    "config validate (and start) refuse an unknown name with its file, line, key and the closest name",
    () => {
      const bad = sb.project(
        "badtpl",
        [
          "[daemons.web]",
          'run = "exec sleep 300"',
          "port = 3000",
          "",
          "[daemons.client]",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
          "run = \"echo {{ daemon.nmae }} '{{.Names}}' ${HOME} {}\"",
          'ready_http = "http://127.0.0.1:{{ daemons.web.prot }}/"',
          "",
          "[daemons.client.hooks]",
          'on_ready = "echo {{ settings.proxy.tdl }}"',
          "",
        ].join("\n"),
      )
      const file = join(bad, "supervisor.toml")
      for (const args of [
        ["config", "validate"],
        ["start", "client"],
      ]) {
        const r = sb.cli(args, bad)
        expect(r.status, show(r)).toBe(1)
        expect(r.stderr).toContain(
          `${file}:6: daemons.client.run: unknown template variable "daemon.nmae"; did you mean {{ daemon.name }}?`,
        )
        expect(r.stderr).toContain(
          `${file}:7: daemons.client.ready_http: unknown template variable "daemons.web.prot"; did you mean {{ daemons.web.port }}?`,
        )
        expect(r.stderr).toContain(
          `${file}:10: daemons.client.hooks.on_ready: unknown template variable "settings.proxy.tdl"; did you mean {{ settings.proxy.tld }}?`,
        )
        expect(r.stderr).not.toMatch(STACK_LINE)
      }
      // once the names are valid, a daemon that is not configured is named with the closest one
      const fixed = sb.project(
        "badtpl2",
        [
          "[daemons.web]",
          'run = "exec sleep 300"',
          "",
          "[daemons.other]",
          'run = "curl {{ daemons.wbe.proxy_url }}"',
          "",
        ].join("\n"),
      )
      const r = sb.cli(["config", "validate"], fixed)
      expect(r.status, show(r)).toBe(1)
      expect(r.stderr).toContain(
        `${join(fixed, "supervisor.toml")}:5: daemons.other.run: template {{ daemons.wbe.proxy_url }} names "wbe", which is not a configured daemon`,
      )
      expect(r.stderr).toContain("did you mean {{ daemons.web.proxy_url }}?")
    },
    T,
  )

  it(
    "docs/templates.md examples run as documented, each in a project of its own",
    async () => {
      const examples = docExamples(readFileSync(join(__dirname, "../../docs/templates.md"), "utf8"))
      expect(examples.map((e) => e.runs.length > 0)).toEqual([true, true])
      const ports = new Map<number, number>()
      for (const e of examples) for (const p of e.ports) ports.set(p, await freePort())
      const remap = (text: string) => {
        let out = text
        for (const [from, to] of ports) out = out.replaceAll(String(from), String(to))
        return out
      }
      const dirs = examples.map((e, i) => sb.project(`docs${i}`, `${remap(e.toml)}\n`))
      for (const [i, e] of examples.entries())
        for (const run of e.runs) {
          const r = await sb.cliAsync(run.args, dirs[i]!)
          expect(r.status, `docs/templates.md:${e.line}: ${show(r)}`).toBe(run.status)
          expect(r.stderr).not.toMatch(STACK_LINE)
        }
      const [first, invalid] = dirs as [string, string]
      const [dbPort, apiPort] = [ports.get(18201), ports.get(18202)]
      expect(readFileSync(join(first, "api.txt"), "utf8")).toBe(
        `docs0/api on ${apiPort} uses postgres://127.0.0.1:${dbPort}/app\n`,
      )
      await waitFor("the on_ready hook's line", () => existsSync(join(first, "hooks.txt")))
      expect(readFileSync(join(first, "hooks.txt"), "utf8")).toBe(`api is ready in ${first}\n`)
      const r = sb.cli(["config", "validate"], invalid)
      const file = join(invalid, "supervisor.toml")
      expect(r.stderr).toContain(
        `${file}:2: daemons.web.run: unknown template variable "daemon.nmae"; did you mean {{ daemon.name }}?`,
      )
      expect(r.stderr).toContain(
        `${file}:7: daemons.worker.ready_http: template {{ daemons.wbe.port }} names "wbe", which is not a configured daemon\n  hint: did you mean {{ daemons.web.port }}?`,
      )
    },
    T,
  )
})
