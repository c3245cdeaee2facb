/**
 * `supervisor export TARGET --check` through the built CLI: the target's own validator runs on
 * the files (systemd-analyze, Debian's docker-compose), says which ran, and a refusal exits 1
 * with its words; a target without an installed validator gets one line naming how to install
 * one, and exits 0.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { ExportOutput } from "../../src/domain/ExportOutput.js"
import { SHOP } from "../export/fixture.js"
import { validateCompose } from "../export/validate.js"
import { makeSandbox, runCli, type Sandbox } from "./harness.js"

const decodeOutput = Schema.decodeUnknownSync(ExportOutput, { onExcessProperty: "error" })

let sb: Sandbox
let project: string
beforeEach(() => {
  sb = makeSandbox()
  project = join(sb.root, "work", "shop")
  sb.write({ "work/shop/supervisor.toml": SHOP })
})
afterEach(() => sb.cleanup())
const cli = (args: ReadonlyArray<string>, env: Record<string, string> = sb.env) =>
  runCli(args, { cwd: project, env })

/** The sandbox's environment with `dir` first on PATH. */
const pathFirst = (dir: string) => ({ ...sb.env, PATH: `${dir}:${sb.env.PATH ?? process.env.PATH}` })

describe("supervisor export --check (e2e)", () => {
  it("systemd: systemd-analyze verify passes the units written under --out, and says so", () => {
    const out = join(sb.root, "units")
    const r = cli(["export", "systemd", "--out", out, "--check"])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain("✓ checked with systemd-analyze verify: no problem")
    const json = decodeOutput(
      JSON.parse(cli(["export", "systemd", "--out", out, "--force", "--check", "--json"]).stdout),
    )
    expect(json.check).toEqual({ _tag: "Checked", validator: "systemd-analyze verify", ok: true, output: "" })
  })

  it("compose: a compose validator from Debian accepts the file; stdout is still the file", () => {
    const r = cli(["export", "compose", "--check"])
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
    const r = cli(["export", "systemd", "--check"], pathFirst(bin))
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      "error: systemd-analyze verify refused the export:\nshop--api.service: bad setting",
    )
    const json = cli(["export", "systemd", "--check", "--json"], pathFirst(bin))
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
    const r = cli(["export", "nomad", "--check"], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      "note: not checked: install Nomad to check the jobs (https://developer.hashicorp.com/nomad/install)",
    )
    const json = decodeOutput(JSON.parse(cli(["export", "kubernetes", "--check", "--json"], env).stdout))
    expect(json.check).toMatchObject({ _tag: "NoValidator", install: expect.stringContaining("kubeconform") })
  })
})
