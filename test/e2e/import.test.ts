import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Schema } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ImportOutput } from "../../src/import/model.js"
import { copyInstall, makeSandbox, runCli, type Sandbox, STACK_LINE } from "./harness.js"

let sb: Sandbox
let project: string
beforeEach(() => {
  sb = makeSandbox()
  project = join(sb.root, "work", "shop")
})
afterEach(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: project, env: sb.env })

interface Shown {
  readonly daemons: Record<string, { readonly config: Record<string, unknown> }>
}
/** `supervisor config show --json`: the merged configuration, as the CLI prints it. */
const shown = (): Shown["daemons"] => {
  const r = cli("config", "show", "--json")
  expect(r.status, r.stderr).toBe(0)
  return (JSON.parse(r.stdout) as Shown).daemons
}

describe("supervisor import (e2e)", () => {
  it("procfile: writes supervisor.toml, which config show reads back as the same processes", () => {
    sb.write({ "work/shop/Procfile": "web: exec node server.js\nworker: node worker.js --queue=mail\n" })
    const r = cli("import", "procfile", "Procfile")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("imported 2 daemons")
    expect(r.stderr).toBe("")
    const daemons = shown()
    expect(Object.keys(daemons)).toEqual(["shop/web", "shop/worker"])
    expect(daemons["shop/web"]!.config.run).toBe("exec node server.js")
    expect(daemons["shop/worker"]!.config.run).toBe("node worker.js --queue=mail")
  })

  it("procfile: a command that reads $PORT gets a port (foreman's 5000 + 100 per process), no warning", () => {
    sb.write({
      "work/shop/Procfile":
        // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
        "web: node server.js --port $PORT\nworker: node worker.js\nadmin: node admin.js -p ${PORT}\n",
    })
    const r = cli("import", "procfile", "Procfile")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    const toml = readFileSync(join(project, "supervisor.toml"), "utf8")
    expect(toml).toContain('[daemons.web]\nrun = "node server.js --port $PORT"\nport = 5000\n')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
    expect(toml).toContain('[daemons.admin]\nrun = "node admin.js -p ${PORT}"\nport = 5200\n')
    const daemons = shown()
    expect(daemons["shop/web"]!.config.port).toMatchObject({ expect: [5000] })
    expect(daemons["shop/worker"]!.config.port).toBeUndefined()
    expect(daemons["shop/admin"]!.config.port).toMatchObject({ expect: [5200] })
  })

  it("refuses to overwrite an existing file without --force, and overwrites it with --force", () => {
    sb.write({
      "work/shop/Procfile": "web: ./web\n",
      "work/shop/supervisor.toml": '[daemons.old]\nrun = "./old"\n',
    })
    const refused = cli("import", "procfile", "Procfile")
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain(
      `${join(project, "supervisor.toml")}: the file exists; nothing was written`,
    )
    expect(refused.stderr).toContain("hint: add --force")
    expect(readFileSync(join(project, "supervisor.toml"), "utf8")).toBe('[daemons.old]\nrun = "./old"\n')
    const forced = cli("import", "procfile", "Procfile", "--force")
    expect(forced.status, forced.stderr).toBe(0)
    expect(Object.keys(shown())).toEqual(["shop/web"])
  })

  it("pm2: a .js ecosystem file, warnings on stderr and in --json (decoded with its schema), --out", () => {
    sb.write({
      "work/shop/ecosystem.config.js": `module.exports = {
  apps: [
    {
      name: "api",
      script: "server.js",
      args: "--port 3000",
      env: { NODE_ENV: "development" },
      instances: 4,
      max_restarts: 3,
      watch: ["lib"],
      cron_restart: "0 3 * * *",
      max_memory_restart: "200M",
    },
  ],
}
`,
      "work/shop/lib/.keep": "",
    })
    const r = cli("import", "pm2", "ecosystem.config.js", "--out", "supervisor.local.toml", "--json")
    expect(r.status, r.stderr).toBe(0)
    // instances = 4: api.1 to api.4, nothing to warn about
    expect(r.stderr).not.toContain("warning:")
    const out = Schema.decodeUnknownSync(Schema.parseJson(ImportOutput), { onExcessProperty: "error" })(
      r.stdout,
    )
    expect(out.warnings).toEqual([])
    expect(readFileSync(join(project, "supervisor.local.toml"), "utf8")).toBe(out.toml)
    expect(existsSync(join(project, "supervisor.toml"))).toBe(false)
    const api = shown()["shop/api"]!.config
    expect(api).toMatchObject({
      run: "exec node server.js --port 3000",
      instances: 4,
      env: { NODE_ENV: "development" },
      retry: 3,
      watch: ["lib/**/*"],
      cron: { schedule: "0 0 3 * * *", retrigger: "always" },
      memory_limit: "200MiB",
      stop_signal: { signal: "SIGINT" },
    })
  })

  it("compose: --dry-run prints the TOML and writes nothing; written, config show has the dependencies and checks", () => {
    sb.write({
      "work/shop/process-compose.yaml": `processes:
  db:
    command: exec postgres -D ./data
    readiness_probe:
      exec:
        command: pg_isready
  api:
    command: ./api
    depends_on:
      db:
        condition: process_healthy
    readiness_probe:
      http_get:
        port: 8080
        path: /health
    availability:
      restart: on_failure
  seed:
    command: ./seed
    depends_on:
      api:
        condition: process_started
    replicas: 2
`,
    })
    const dry = cli("import", "compose", "process-compose.yaml", "--dry-run")
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.stdout).toContain(
      '[daemons.api]\nrun = "./api"\nretry = true\nready_http = "http://127.0.0.1:8080/health"\ndepends = ["db"]\n',
    )
    expect(dry.stdout).toContain('[daemons.seed]\nrun = "./seed"\ninstances = 2\n')
    expect(existsSync(join(project, "supervisor.toml"))).toBe(false)
    expect(cli("import", "compose", "process-compose.yaml").status).toBe(0)
    const daemons = shown()
    expect(daemons["shop/db"]!.config.ready_cmd).toEqual({ run: "pg_isready" })
    expect(daemons["shop/api"]!.config).toMatchObject({
      depends: ["shop/db"],
      retry: true,
      ready_http: { url: "http://127.0.0.1:8080/health" },
    })
    expect(daemons["shop/seed"]!.config.depends_conditions).toEqual({ "shop/api": "started" })
  })

  it("compose runs from the package alone: its YAML bundle needs no installed dependency", () => {
    const dist = copyInstall(join(sb.root, "pkg"))
    sb.write({ "work/shop/process-compose.yaml": "processes:\n  web:\n    command: exec ./web\n" })
    const r = spawnSync(
      process.execPath,
      [join(dist, "supervisor.cjs"), "import", "compose", "process-compose.yaml", "--dry-run"],
      {
        cwd: project,
        env: sb.env,
        encoding: "utf8",
      },
    )
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('[daemons.web]\nrun = "exec ./web"\n')
  })

  it("a value the config loader refuses: its message with the line of the TOML, nothing written; --dry-run prints the TOML", () => {
    sb.write({
      "work/shop/ecosystem.config.js":
        'module.exports = { apps: [{ name: "a", script: "a.js", cron_restart: "99 * * * *" }] }\n',
    })
    const r = cli("import", "pm2", "ecosystem.config.js")
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      `${join(project, "supervisor.toml")}:6: daemons.a.cron.schedule: invalid cron schedule "0 99 * * * *"`,
    )
    expect(r.stderr).toContain(
      "(imported from ecosystem.config.js; nothing was written)\n  hint: change that value in ecosystem.config.js",
    )
    expect(existsSync(join(project, "supervisor.toml"))).toBe(false)
    const dry = cli("import", "pm2", "ecosystem.config.js", "--dry-run")
    expect(dry.status).toBe(1)
    expect(dry.stdout.split("\n")[5]).toBe('cron = { schedule = "0 99 * * * *", retrigger = "always" }')
  })

  it("bad input: a clear error naming the file (and key), exit 1, nothing written, no stack trace", () => {
    sb.write({
      "work/shop/bad.yaml": "processes: [\n",
      "work/shop/nocommand.yaml": "processes:\n  web:\n    working_dir: x\n",
      "work/shop/ecosystem.config.js": 'throw new Error("missing secret")\n',
    })
    for (const [args, message] of [
      [["compose", "bad.yaml"], `${join(project, "bad.yaml")}: not valid YAML:`],
      [["compose", "nocommand.yaml"], `${join(project, "nocommand.yaml")}: processes.web.command: missing`],
      [["pm2", "ecosystem.config.js"], "loading it failed: Error: missing secret"],
      [["procfile", "Nope"], `${join(project, "Nope")}: cannot read the file: ENOENT`],
    ] as const) {
      const r = cli("import", ...args)
      expect(r.status, r.stderr).toBe(1)
      expect(r.stderr).toContain(message)
      expect(r.stderr).toContain("hint:")
      expect(r.stderr).not.toMatch(STACK_LINE)
    }
    expect(existsSync(join(project, "supervisor.toml"))).toBe(false)
    const usage = cli("import", "yaml", "x")
    expect(usage.status).toBe(2)
  })
})

/** The examples of docs/import.md: a source block under `<!-- import: SOURCE FILE -->`, then its TOML and warnings. */
const docExamples = () => {
  const text = readFileSync(resolve(__dirname, "../../docs/import.md"), "utf8")
  const blocks = [...text.matchAll(/(?:<!-- import: (\w+) (\S+) -->\n)?```(\w*)\n([\s\S]*?)```/g)]
  return blocks.flatMap((b, i) => {
    if (b[1] === undefined) return []
    const toml = blocks[i + 1]!
    const stderr = blocks[i + 2]?.[3] === "text" ? blocks[i + 2]![4]! : ""
    expect(toml[3]).toBe("toml")
    return [{ source: b[1], file: b[2]!, input: b[4]!, toml: toml[4]!, stderr }]
  })
}

describe("docs/import.md (e2e)", () => {
  it("each example imports to the TOML and the warnings the page shows, and that TOML loads", () => {
    const examples = docExamples()
    expect(examples.map((e) => e.source)).toEqual(["procfile", "pm2", "compose"])
    for (const e of examples) {
      sb.write({ [`work/shop/${e.file}`]: e.input })
      const r = cli("import", e.source, e.file, "--dry-run")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout, e.file).toBe(e.toml)
      expect(r.stderr, e.file).toBe(e.stderr)
      sb.write({ "work/shop/supervisor.toml": r.stdout })
      const valid = cli("config", "validate")
      expect(valid.status, valid.stderr).toBe(0)
    }
  })
})
