import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { caPaths, loadOrCreateCa } from "../../../src/proxy/tls/ca.js"
import { caTrusted, installedFile, stepText, trustPlan, trustSystem } from "../../../src/proxy/tls/trust.js"

const dirs: Array<string> = []
const temp = () => {
  const d = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-trust-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const fakeTool = (name: string) => {
  const bin = temp()
  fs.writeFileSync(nodePath.join(bin, name), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  return bin
}

describe("trust store", () => {
  it("is found by its update tool, macOS by platform, or chosen by SUPERVISOR_CA_TRUST_SYSTEM", () => {
    expect(trustSystem({ PATH: "" }, "darwin")).toBe("macos")
    expect(
      trustSystem({ PATH: fakeTool("update-ca-trust"), SUPERVISOR_CA_TRUST_SYSTEM: "fedora" }, "linux"),
    ).toBe("fedora")
    expect(trustSystem({ PATH: fakeTool("update-ca-certificates") }, "linux")).toBe("debian")
    expect(trustSystem({ SUPERVISOR_CA_TRUST_SYSTEM: "none" }, "linux")).toBeUndefined()
    expect(trustSystem({ SUPERVISOR_CA_TRUST_SYSTEM: "nope" }, "linux")).toEqual({
      error: expect.stringContaining("SUPERVISOR_CA_TRUST_SYSTEM=nope is not a trust store"),
    })
  })

  it("plans the system's commands: the Debian and Fedora files, the macOS keychain", () => {
    const state = temp()
    const ca = caPaths(state).cert
    expect(installedFile("debian", {})).toBe("/usr/local/share/ca-certificates/supervisor-local-ca.crt")
    expect(installedFile("fedora", {})).toBe("/etc/pki/ca-trust/source/anchors/supervisor-local-ca.pem")
    const fedora = trustPlan("fedora", "trust", state, { SUPERVISOR_CA_STORE_DIR: temp() })
    expect(fedora.needsRoot).toBe(false)
    expect(fedora.steps.map(stepText)[1]).toBe("update-ca-trust")
    const mac = trustPlan("macos", "trust", state, {})
    expect(mac.steps.map(stepText)).toEqual([
      `security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${ca}`,
    ])
    loadOrCreateCa(state)
    const macOut = trustPlan("macos", "untrust", state, {}).steps.map(stepText)
    expect(macOut[0]).toBe(`security remove-trusted-cert -d ${ca}`)
    expect(macOut[1]).toMatch(
      /^security delete-certificate -Z [0-9A-F]{40} \/Library\/Keychains\/System\.keychain$/,
    )
  })

  it("caTrusted: true when the installed copy equals ca.pem, false when missing or different, null unknown", () => {
    const state = temp()
    const store = temp()
    const env = { SUPERVISOR_CA_TRUST_SYSTEM: "debian", SUPERVISOR_CA_STORE_DIR: store }
    expect(caTrusted(state, env, "linux")).toBe(false)
    const ca = loadOrCreateCa(state)
    expect(caTrusted(state, env, "linux")).toBe(false)
    fs.copyFileSync(ca.paths.cert, installedFile("debian", env))
    expect(caTrusted(state, env, "linux")).toBe(true)
    fs.writeFileSync(installedFile("debian", env), "another CA\n")
    expect(caTrusted(state, env, "linux")).toBe(false)
    expect(caTrusted(state, { SUPERVISOR_CA_TRUST_SYSTEM: "none" }, "linux")).toBeNull()
  })
})
