import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { loadOrCreateCa } from "../../src/proxy/tls/ca.js"
import { makeSandbox, runCli, type Sandbox } from "./harness.js"

// `proxy trust|untrust` through the built CLI, with the store redirected to the sandbox
// (SUPERVISOR_CA_STORE_DIR) and a fake update-ca-certificates first on PATH: the machine's
// real trust store is never touched. The CA is made as the supervisor makes it when the https
// proxy starts (loadOrCreateCa): `proxy trust` never creates one.

let sb: Sandbox
afterEach(() => sb?.cleanup())

const setup = (updateExit = 0) => {
  sb = makeSandbox()
  const bin = join(sb.root, "bin")
  const calls = join(sb.root, "calls.log")
  mkdirSync(bin)
  writeFileSync(
    join(bin, "update-ca-certificates"),
    `#!/bin/sh\necho "update-ca-certificates $*" >> '${calls}'\n${updateExit === 0 ? 'echo "1 added, 0 removed; done."' : 'echo "cannot write /etc/ssl/certs" >&2'}\nexit ${updateExit}\n`,
  )
  chmodSync(join(bin, "update-ca-certificates"), 0o755)
  const state = join(sb.root, "state")
  const store = join(sb.root, "store")
  const env = {
    ...sb.env,
    PATH: `${bin}:${sb.env.PATH}`,
    SUPERVISOR_STATE_DIR: state,
    SUPERVISOR_CA_STORE_DIR: store,
    SUPERVISOR_CA_TRUST_SYSTEM: "debian",
  }
  const calledTimes = () =>
    existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0
  return {
    env,
    makeCa: () => loadOrCreateCa(state),
    ca: join(state, "proxy", "ca.pem"),
    installed: join(store, "supervisor-local-ca.crt"),
    calledTimes,
  }
}

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCli(args, { cwd: sb.root, env })

describe("supervisor proxy trust / untrust", () => {
  it("--dry-run prints the commands and changes nothing", () => {
    const t = setup()
    t.makeCa()
    const r = cli(["proxy", "trust", "--dry-run"], t.env)
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("would run (Debian/Ubuntu system store):")
    expect(r.stdout).toContain(`  install -m 0644 ${t.ca} ${t.installed}`)
    expect(r.stdout).toContain("  update-ca-certificates")
    expect(existsSync(t.installed)).toBe(false)
    expect(t.calledTimes()).toBe(0)
  })

  it("no CA yet: fails naming where it will be and how it is made; creates and installs nothing", () => {
    const t = setup()
    const r = cli(["proxy", "trust"], t.env)
    expect(r.status).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain(`error: there is no local CA yet: it will be ${t.ca};`)
    expect(r.stderr).toContain("supervisor settings set proxy.enable true --global")
    expect(r.stderr).toContain("then run `supervisor proxy trust` again")
    expect(existsSync(t.ca)).toBe(false)
    expect(existsSync(join(t.ca, ".."))).toBe(false)
    expect(existsSync(t.installed)).toBe(false)
    expect(t.calledTimes()).toBe(0)
    // --dry-run says the same as a note, shows the commands, and makes nothing either
    const dry = cli(["proxy", "trust", "--dry-run"], t.env)
    expect(dry.status).toBe(0)
    expect(dry.stdout).toContain(`note: there is no local CA yet: it will be ${t.ca};`)
    expect(dry.stdout).toContain(`  install -m 0644 ${t.ca} ${t.installed}`)
    expect(existsSync(t.ca)).toBe(false)
    // an unusable CA is not replaced here either
    mkdirSync(join(t.ca, ".."), { recursive: true })
    writeFileSync(t.ca, "not a certificate")
    writeFileSync(join(t.ca, "..", "ca-key.pem"), "not a key")
    const bad = cli(["proxy", "trust"], t.env)
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain(
      `error: the local CA ${t.ca} cannot be used: it is not a valid PEM certificate`,
    )
    expect(readFileSync(t.ca, "utf8")).toBe("not a certificate")
    expect(t.calledTimes()).toBe(0)
  })

  it("installs the CA, says what it ran, and untrust removes it", () => {
    const t = setup()
    t.makeCa()
    const trust = cli(["proxy", "trust"], t.env)
    expect(trust.stderr).toBe("")
    expect(trust.status).toBe(0)
    expect(trust.stdout).toContain(`ran: install -m 0644 ${t.ca} ${t.installed}`)
    expect(trust.stdout).toContain("ran: update-ca-certificates")
    expect(trust.stdout).toContain(`trusted the local CA ${t.ca}`)
    expect(readFileSync(t.installed, "utf8")).toBe(readFileSync(t.ca, "utf8"))
    expect(t.calledTimes()).toBe(1)

    const again = cli(["proxy", "trust"], t.env)
    expect(again.status).toBe(0)
    expect(again.stdout).toContain("is already trusted")
    expect(t.calledTimes()).toBe(1)

    const untrust = cli(["proxy", "untrust"], t.env)
    expect(untrust.stderr).toBe("")
    expect(untrust.status).toBe(0)
    expect(untrust.stdout).toContain(`ran: rm -f ${t.installed}`)
    expect(untrust.stdout).toContain("ran: update-ca-certificates")
    expect(existsSync(t.installed)).toBe(false)
    expect(t.calledTimes()).toBe(2)

    const twice = cli(["proxy", "untrust"], t.env)
    expect(twice.status).toBe(0)
    expect(twice.stdout).toContain("not in the Debian/Ubuntu system store: nothing to do")
  })

  it("a store it cannot write: prints the commands to run with sudo, exits 1, runs nothing", () => {
    const t = setup()
    t.makeCa()
    writeFileSync(join(sb.root, "plainfile"), "")
    const env = { ...t.env, SUPERVISOR_CA_STORE_DIR: join(sb.root, "plainfile", "store") }
    const r = cli(["proxy", "trust"], env)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("needs root")
    expect(r.stderr).toContain("supervisor never runs sudo itself")
    expect(r.stderr).toContain(
      `  sudo install -m 0644 ${t.ca} ${join(sb.root, "plainfile", "store", "supervisor-local-ca.crt")}`,
    )
    expect(r.stderr).toContain("  sudo update-ca-certificates")
    expect(t.calledTimes()).toBe(0)
  })

  it("a failing update tool: its message and exit 1", () => {
    const t = setup(1)
    t.makeCa()
    const r = cli(["proxy", "trust"], t.env)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("update-ca-certificates exited with 1: cannot write /etc/ssl/certs")
  })

  it("an unknown system: where the CA is, to trust by hand; a bad override is named", () => {
    const t = setup()
    t.makeCa()
    const r = cli(["proxy", "trust"], { ...t.env, SUPERVISOR_CA_TRUST_SYSTEM: "none" })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      `The CA is ${t.ca}: add it to your system's and browsers' trust stores by hand`,
    )
    const bad = cli(["proxy", "untrust"], { ...t.env, SUPERVISOR_CA_TRUST_SYSTEM: "windows" })
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain("SUPERVISOR_CA_TRUST_SYSTEM=windows is not a trust store")
  })
})
