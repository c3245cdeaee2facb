/**
 * `supervisor export` through the built CLI: each target to stdout, --out, --json through its
 * Schema, --image, and --check running the target's own validator (systemd-analyze, Debian's
 * docker-compose), a refusal exiting 1 with its words, a missing validator one line and exit 0.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { ExportOutput } from "../../src/domain/ExportOutput.js"
import { SHOP } from "../export/fixture.js"
import {
  at,
  type Job,
  jobProblems,
  manifestOf,
  manifestProblems,
  manifests,
  type Obj,
  validateCompose,
} from "../export/validate.js"
import { makeSandbox, runCli, type Sandbox, STACK_LINE } from "./harness.js"

const decodeOutput = Schema.decodeUnknownSync(ExportOutput, { onExcessProperty: "error" })

let sb: Sandbox
let project: string
beforeEach(() => {
  sb = makeSandbox()
  project = join(sb.root, "work", "shop")
  sb.write({ "work/shop/supervisor.toml": SHOP })
})
afterEach(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: project, env: sb.env })
/** `cli` with another environment. */
const cliWith = (env: Record<string, string>, ...args: Array<string>) => runCli(args, { cwd: project, env })
/** The sandbox's environment with `dir` first on PATH. */
const pathFirst = (dir: string) => ({ ...sb.env, PATH: `${dir}:${sb.env.PATH ?? process.env.PATH}` })

describe("supervisor export (e2e)", () => {
  it("compose to stdout: one document that validates against the compose spec; warnings on stderr", () => {
    const r = cli("export", "compose")
    expect(r.status, r.stderr).toBe(0)
    const doc = parse(r.stdout) as { services: Record<string, Obj> }
    expect(Object.keys(doc.services)).toEqual(["shop--api", "shop--db", "shop--migrate", "shop--report"])
    expect(validateCompose(doc)).toBe(true)
    expect(r.stderr).toContain(
      "warning: shop/report: cron (0 30 2 * * 1-5) has no compose equivalent: the service runs once at up",
    )
  })

  it("compose warns about a daemon that binds 127.0.0.1, which the container's published port cannot reach", () => {
    sb.write({
      "work/shop/supervisor.toml":
        '[daemons.web]\nrun = "exec gunicorn -b 127.0.0.1:8000 app:app"\nport = 8000\n',
    })
    const r = cli("export", "compose")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      "warning: shop/web: run binds the loopback address (-b 127.0.0.1:8000): in a container it cannot be reached through the published ports or by the other services; bind 0.0.0.0 in the container",
    )
  })

  it("kubernetes --image to stdout: a separator per file; every object valid by the Kubernetes OpenAPI schemas", () => {
    const r = cli("export", "kubernetes", "--image", "registry.example/shop:1.2")
    expect(r.status, r.stderr).toBe(0)
    const parts = r.stdout.split(/^# ==> (.+) <==\n/m).slice(1)
    const names = parts.filter((_, i) => i % 2 === 0)
    expect(names).toEqual([
      "shop--api.yaml",
      "shop--db.yaml",
      "shop--migrate.yaml",
      "shop--report.yaml",
      "supervisor-export-wait.yaml",
    ])
    for (let i = 0; i < parts.length; i += 2)
      for (const m of manifests(parts[i + 1]!)) expect(manifestProblems(m), parts[i]).toEqual([])
    const api = manifestOf(parts[1]!, "Deployment")
    expect(at(api, "spec.template.spec.containers")).toMatchObject([{ image: "registry.example/shop:1.2" }])
    expect((at(api, "spec.template.spec.initContainers") as Array<Obj>).map((c) => c.name)).toEqual([
      "wait-shop--db",
      "wait-shop--migrate",
    ])
    expect(manifestOf(parts[1]!, "ConfigMap").data).toMatchObject({ DB: "shop--db:5432" })
    expect(r.stderr).not.toContain("every container runs image")
  })

  it("kubernetes --json: a daemon's export.image wins over --image; env files and secrets in the objects", () => {
    sb.write({
      "work/shop/supervisor.toml":
        '[daemons.db]\nrun = "postgres"\nport = 5432\nexport = { image = "postgres:17" }\n\n[daemons.api]\nrun = "node api.js"\nenv_file = ".env"\ndepends = ["db"]\n',
      "work/shop/.env": "DATABASE_URL=postgres://localhost:5432/app\nDB_PASSWORD=hunter2\n",
    })
    const r = cli("export", "kubernetes", "--json", "--image", "shop:1")
    expect(r.status, r.stderr).toBe(0)
    const out = decodeOutput(JSON.parse(r.stdout))
    expect(r.stdout).not.toContain("hunter2")
    const file = (path: string) => out.files.find((f) => f.path === path)!.content
    for (const f of out.files)
      for (const m of manifests(f.content)) expect(manifestProblems(m), f.path).toEqual([])
    const image = (path: string) =>
      (at(manifestOf(file(path), "Deployment"), "spec.template.spec.containers") as Array<Obj>)[0]!.image
    expect([image("shop--db.yaml"), image("shop--api.yaml")]).toEqual(["postgres:17", "shop:1"])
    expect(manifestOf(file("shop--api.yaml"), "ConfigMap").data).toEqual({
      DATABASE_URL: "postgres://shop--db:5432/app",
    })
    expect(manifestOf(file("shop--api.yaml"), "Secret").stringData).toEqual({ DB_PASSWORD: "***" })
  })

  it("--image with a target that has no images is refused, naming the fix", () => {
    const r = cli("export", "systemd", "--image", "shop:1")
    expect(r.status).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain(
      "error: --image is for compose and kubernetes: systemd runs the daemons' programs as they are; drop --image",
    )
    const compose = cli("export", "compose", "--image", "localhost/shop:1")
    expect(compose.status, compose.stderr).toBe(0)
    const doc = parse(compose.stdout) as { services: Record<string, { image: string }> }
    expect(Object.values(doc.services).map((s) => s.image)).toContain("localhost/shop:1")
    expect(compose.stderr).not.toContain("debian:stable-slim")
  })

  it("nomad --json: the files and warnings decode with the declared schema; each job parses back", () => {
    const r = cli("export", "nomad", "--json")
    expect(r.status, r.stderr).toBe(0)
    const out = decodeOutput(JSON.parse(r.stdout))
    // a job for the project, a periodic job for the cron daemon
    expect(out.files.map((f) => f.path)).toEqual(["shop--report.nomad.json", "shop.nomad.json"])
    for (const f of out.files) expect(jobProblems(JSON.parse(f.content) as Job), f.path).toEqual([])
    // the same warnings as on stderr
    expect(out.warnings).toContain(
      "shop/db: cpu_limit (50%) is not mapped: Nomad reserves CPU in MHz, not a share of a core",
    )
    for (const w of out.warnings) expect(r.stderr).toContain(`warning: ${w}`)
  })

  it("systemd --out DIR writes the units; a second run refuses without --force and changes nothing", () => {
    const out = join(sb.root, "units")
    const first = cli("export", "systemd", "--out", out)
    expect(first.status, first.stderr).toBe(0)
    expect(readdirSync(out).sort()).toEqual([
      "shop--api.service",
      "shop--db.service",
      "shop--migrate.service",
      "shop--report.service",
      "shop--report.timer",
    ])
    expect(first.stdout).toContain(`wrote ${join(out, "shop--report.timer")}`)
    writeFileSync(join(out, "shop--db.service"), "# mine\n")
    const again = cli("export", "systemd", "--out", out)
    expect(again.status).toBe(1)
    expect(again.stderr).toContain(`error: files exist in ${out}: ${join(out, "shop--api.service")}, `)
    expect(again.stderr).toContain("; nothing was written")
    expect(again.stderr).toContain("Add --force")
    expect(again.stderr).not.toMatch(STACK_LINE)
    expect(readFileSync(join(out, "shop--db.service"), "utf8")).toBe("# mine\n")
    const forced = cli("export", "systemd", "--out", out, "--force")
    expect(forced.status, forced.stderr).toBe(0)
    expect(readFileSync(join(out, "shop--db.service"), "utf8")).toContain("MemoryMax=536870912")
    // --json with --out: the paths written, with their content
    const asJson = cli("export", "systemd", "--out", out, "--force", "--json")
    expect(asJson.status, asJson.stderr).toBe(0)
    const written = decodeOutput(JSON.parse(asJson.stdout))
    expect(written.files.map((f) => f.path)).toContain(join(out, "shop--report.timer"))
    for (const f of written.files) expect(readFileSync(f.path, "utf8")).toBe(f.content)
    const verify = spawnSync("systemd-analyze", ["verify", "--man=no", ...readdirSync(out)], {
      cwd: out,
      encoding: "utf8",
    })
    expect(verify.error, "systemd-analyze is needed: apt-get install systemd").toBeUndefined()
    expect(verify.stderr).toBe("")
    expect(verify.status).toBe(0)
  })

  it("an unknown target is a usage error naming the choices; a broken configuration exits 1 with its problem", () => {
    const bad = cli("export", "swarm")
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/systemd|compose|kubernetes|nomad/)
    sb.write({ "work/shop/supervisor.toml": '[daemons.x]\nrun = "x"\nretyr = 3\n' })
    const broken = cli("export", "compose")
    expect(broken.status).toBe(1)
    expect(broken.stderr).toContain("retyr")
    expect(broken.stdout).toBe("")
  })
})

describe("supervisor export --check (e2e)", () => {
  it("systemd: systemd-analyze verify passes the units written under --out, and says so", () => {
    const out = join(sb.root, "units")
    const r = cli("export", "systemd", "--out", out, "--check")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain("✓ checked with systemd-analyze verify: no problem")
    const json = decodeOutput(
      JSON.parse(cli("export", "systemd", "--out", out, "--force", "--check", "--json").stdout),
    )
    expect(json.check).toEqual({ _tag: "Checked", validator: "systemd-analyze verify", ok: true, output: "" })
  })

  it("compose: a compose validator from Debian accepts the file; stdout is still the file", () => {
    const r = cli("export", "compose", "--check")
    expect(r.status, r.stderr).toBe(0)
    expect(validateCompose(parse(r.stdout))).toBe(true)
    expect(r.stderr).toMatch(
      /✓ checked with (docker compose|podman-compose|docker-compose) config: no problem/,
    )
  })

  it("a validator that refuses the files: its words on stderr, exit 1", () => {
    const bin = join(sb.root, "bin")
    mkdirSync(bin)
    writeFileSync(
      join(bin, "systemd-analyze"),
      '#!/bin/sh\n[ "$1" = --version ] && exit 0\necho "shop--api.service: bad setting" >&2\nexit 1\n',
      { mode: 0o755 },
    )
    const r = cliWith(pathFirst(bin), "export", "systemd", "--check")
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      "error: systemd-analyze verify refused the export:\nshop--api.service: bad setting",
    )
    const json = cliWith(pathFirst(bin), "export", "systemd", "--check", "--json")
    expect(json.status).toBe(1)
    expect(decodeOutput(JSON.parse(json.stdout)).check).toEqual({
      _tag: "Checked",
      validator: "systemd-analyze verify",
      ok: false,
      output: "shop--api.service: bad setting",
    })
  })

  it("no validator installed: one line naming how to install one, exit 0", () => {
    const empty = join(sb.root, "empty")
    mkdirSync(empty)
    const env = { ...sb.env, PATH: empty }
    const r = cliWith(env, "export", "nomad", "--check")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      "note: not checked: install Nomad to check the jobs (https://developer.hashicorp.com/nomad/install)",
    )
    const json = decodeOutput(JSON.parse(cliWith(env, "export", "kubernetes", "--check", "--json").stdout))
    expect(json.check).toMatchObject({ _tag: "NoValidator", install: expect.stringContaining("kubeconform") })
  })
})
