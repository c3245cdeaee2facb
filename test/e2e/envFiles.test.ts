// biome-ignore-all lint/suspicious/noTemplateCurlyInString: dotenv text, where ${VAR} is expanded by the supervisor
/**
 * Env files through the built CLI with real processes: a daemon whose `.env` uses every dotenv
 * form writes its environment to a file; the values and their precedence are as
 * docs/configuration.md says; an edited `.env` shows after a restart; a secret is masked in
 * `config show`, the API and MCP; a missing env file and a malformed line are config errors.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiGet,
  apiPost,
  type CliResult,
  type DaemonSandbox,
  freePort,
  makeDaemonSandbox,
  waitFor,
} from "./harness.js"
import { connectMcp } from "./mcpClient.js"

const T = 60_000
const NODE = process.execPath
const SECRET = "tok-5ecret-value-123"
let sb: DaemonSandbox
let dir: string
let port: number

const show = (r: CliResult) => `status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`

/** The environment the daemon wrote at its start (`env.json`), after its run number `run`. */
const written = async (run: number): Promise<Record<string, string>> =>
  waitFor(
    `env.json of run ${run}`,
    () => {
      try {
        const env = JSON.parse(readFileSync(join(dir, "env.json"), "utf8")) as Record<string, string>
        return env.RUN_MARK === String(run) ? env : undefined
      } catch {
        return undefined
      }
    },
    { timeout: T },
  )

const DOTENV = `# every form of the syntax
export EXPORTED=yes
SINGLE='literal \${HOME} \\n # kept'
DOUBLE="tab\\there\\nnext \\"quoted\\" \${B}"
UNQUOTED=  plain value   # a trailing comment
DEFAULTED=\${NOT_SET_ANYWHERE:-fallback}
EMPTY_DEFAULT=\${EMPTY:-was empty}
EMPTY=
FROM_FILE=\${EXPORTED}-again
FROM_SUPERVISOR=\${SUP_ONLY}
ESCAPED="\\\${EXPORTED}"
MULTI="line 1
line 2"
C=daemon-file
D=daemon-file
PORT=1
SUPERVISOR_DAEMON_ID=not-this
RUN_MARK=1
`

beforeAll(async () => {
  port = await freePort()
  sb = makeDaemonSandbox()
  sb.env.SUP_ONLY = "from-supervisor"
  sb.env.A = "supervisor"
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
  const writer = `exec "${NODE}" -e "require('fs').writeFileSync('env.json', JSON.stringify(process.env)); console.log('written'); setInterval(() => {}, 1e6)"`
  dir = sb.project(
    "envp",
    `
env_file = "shared.env"

[env]
B = "top-env"
C = "top-env"
TOP_ONLY = "top-env"

[daemons.show]
run = ${JSON.stringify(writer)}
port = ${port}
env_file = [".env", { path = ".env.local", optional = true }]
env = { D = "daemon-env", API_TOKEN = "${SECRET}" }
ready_output = "^written"
`,
  )
  writeFileSync(join(dir, "shared.env"), "A=shared-file\nB=shared-file\nC=shared-file\n")
  writeFileSync(join(dir, ".env"), DOTENV)
}, T)

afterAll(() => sb?.destroy(), T)

describe("env files", () => {
  it(
    "every dotenv form reaches the daemon, layered in the documented order",
    async () => {
      const r = sb.cli(["start", "show"], dir)
      expect(r.status, show(r)).toBe(0)
      const env = await written(1)
      expect(env).toMatchObject({
        EXPORTED: "yes",
        SINGLE: "literal ${HOME} \\n # kept",
        DOUBLE: 'tab\there\nnext "quoted" top-env',
        UNQUOTED: "plain value",
        DEFAULTED: "fallback",
        EMPTY_DEFAULT: "was empty",
        EMPTY: "",
        FROM_FILE: "yes-again",
        FROM_SUPERVISOR: "from-supervisor",
        ESCAPED: "${EXPORTED}",
        MULTI: "line 1\nline 2",
        // precedence, lowest first: supervisor, top-level env_file, [env], daemon env_file, env, PORT
        SUP_ONLY: "from-supervisor",
        A: "shared-file",
        B: "top-env",
        TOP_ONLY: "top-env",
        C: "daemon-file",
        D: "daemon-env",
        PORT: String(port),
        SUPERVISOR_DAEMON_ID: "envp/show",
      })
    },
    T,
  )

  it(
    "an edited .env shows after a restart (read at each start, not at load)",
    async () => {
      // only the env files change: the configuration is the same
      writeFileSync(
        join(dir, ".env"),
        DOTENV.replace("C=daemon-file", "C=changed").replace("RUN_MARK=1", "RUN_MARK=2"),
      )
      writeFileSync(join(dir, ".env.local"), "LOCAL=1\nD=local-file\n")
      const r = sb.cli(["restart", "show"], dir)
      expect(r.status, show(r)).toBe(0)
      const env = await written(2)
      expect(env.C).toBe("changed")
      expect(env.LOCAL).toBe("1") // the optional file, now present
      expect(env.D).toBe("daemon-env") // env still wins over every file
      rmSync(join(dir, ".env.local"))
    },
    T,
  )

  it(
    "a secret is masked in config show (text and --json), the API and MCP",
    async () => {
      const json = sb.cli(["config", "show", "--json"], dir)
      expect(json.status, show(json)).toBe(0)
      expect(json.stdout).not.toContain(SECRET)
      const shown = JSON.parse(json.stdout) as {
        daemons: Record<
          string,
          { config: { env: Record<string, string>; env_file: Array<{ path: string }> } }
        >
      }
      expect(shown.daemons["envp/show"]?.config.env).toMatchObject({ API_TOKEN: "***", D: "daemon-env" })
      expect(shown.daemons["envp/show"]?.config.env_file.map((f) => f.path)).toEqual([
        join(dir, ".env"),
        join(dir, ".env.local"),
      ])
      const text = sb.cli(["config", "show"], dir)
      expect(text.status, show(text)).toBe(0)
      expect(text.stdout).toContain("API_TOKEN")
      expect(text.stdout).not.toContain(SECRET)

      const definition = await apiPost<{ config: { env: Record<string, string> } }>(
        sb.stateDir,
        "/api/cli/definition",
        { id: "envp/show" },
      )
      expect(definition?.config.env).toMatchObject({ API_TOKEN: "***", D: "daemon-env" })
      const listed = await apiGet(sb.stateDir, "/api/daemons")
      expect(JSON.stringify(listed)).toContain("envp/show")
      expect(JSON.stringify(listed)).not.toContain(SECRET)

      const client = await connectMcp(sb, dir)
      try {
        for (const [name, args] of [
          ["config", {}],
          ["status", { id: "show" }],
          ["list", {}],
        ] as const) {
          const r = (await client.callTool({ name, arguments: args })) as {
            isError?: boolean
            content: Array<{ text?: string }>
            structuredContent?: Record<string, unknown>
          }
          expect(r.isError ?? false, `${name}: ${r.content[0]?.text}`).toBe(false)
          expect(JSON.stringify(r), name).not.toContain(SECRET)
          if (name === "config") expect(JSON.stringify(r.structuredContent)).toContain('"API_TOKEN":"***"')
        }
      } finally {
        await client.close()
      }
    },
    T,
  )

  it(
    "import procfile takes the .env beside the Procfile as env_file, and the imported daemon gets it",
    async () => {
      const app = sb.dir("procapp")
      const script =
        "require('fs').writeFileSync('imported.json', JSON.stringify(process.env)); console.log('up'); setInterval(() => {}, 1e6)"
      writeFileSync(join(app, "Procfile"), `web: exec "${NODE}" -e "${script}"\n`)
      writeFileSync(join(app, ".env"), "FROM_DOTENV='procfile .env'\n")
      const imported = sb.cli(["import", "procfile", "Procfile"], app)
      expect(imported.status, show(imported)).toBe(0)
      expect(readFileSync(join(app, "supervisor.toml"), "utf8")).toContain('env_file = ".env"')
      const started = sb.cli(["start", "web"], app)
      expect(started.status, show(started)).toBe(0)
      const env = await waitFor(
        "imported.json",
        () => {
          try {
            return JSON.parse(readFileSync(join(app, "imported.json"), "utf8")) as Record<string, string>
          } catch {
            return undefined
          }
        },
        { timeout: T },
      )
      expect(env.FROM_DOTENV).toBe("procfile .env")
    },
    T,
  )

  it(
    "a missing env file names the config file, line and key; a malformed line names the env file and line",
    () => {
      const missing = sb.project(
        "envmissing",
        ["[daemons.api]", 'run = "sleep 60"', 'env_file = "nope.env"', ""].join("\n"),
      )
      const m = sb.cli(["config", "validate"], missing)
      expect(m.status, show(m)).toBe(1)
      expect(m.stderr).toContain(
        `${join(missing, "supervisor.toml")}:3: daemons.api.env_file: env file ${join(missing, "nope.env")} does not exist`,
      )
      expect(m.stderr).toContain('mark it optional: env_file = [{ path = "nope.env", optional = true }]')
      const started = sb.cli(["start", "api"], missing)
      expect(started.status, show(started)).toBe(1)
      expect(started.stderr).toContain("daemons.api.env_file: env file")

      const broken = sb.project(
        "envbroken",
        ["[daemons.api]", 'run = "sleep 60"', 'env_file = ".env"', ""].join("\n"),
      )
      writeFileSync(join(broken, ".env"), "OK=1\n# fine\n=value\n")
      const b = sb.cli(["config", "validate"], broken)
      expect(b.status, show(b)).toBe(1)
      expect(b.stderr).toContain(`${join(broken, ".env")}:3: expected NAME=value`)
      expect(b.stderr).toContain("read through daemons.api.env_file")
    },
    T,
  )
})
