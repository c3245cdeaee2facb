import { spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { findOnPath } from "../../boot/boot.js"
import { shellWord } from "../../shell/quote.js"
import { caPaths } from "./ca.js"

/**
 * Installing the local CA into the system's trust store, and taking it out. Only the
 * `proxy trust` and `proxy untrust` commands call this: nothing is ever trusted automatically.
 */

export type TrustSystem = "debian" | "fedora" | "macos"

type Env = Readonly<Record<string, string | undefined>>

export const SYSTEM_NAMES: Readonly<Record<TrustSystem, string>> = {
  debian: "Debian/Ubuntu system store",
  fedora: "Fedora/RHEL system store",
  macos: "macOS System keychain",
}

const MAC_KEYCHAIN = "/Library/Keychains/System.keychain"

/** Where the update tools live even when a user's PATH leaves out the sbin directories. */
const searchPath = (env: Env) => `${env.PATH ?? ""}:/usr/local/sbin:/usr/sbin:/sbin`

/**
 * The trust store of this machine; SUPERVISOR_CA_TRUST_SYSTEM=debian|fedora|macos|none
 * chooses one. `{ error }` is a message to print; undefined is a system we do not know.
 */
export const trustSystem = (
  env: Env,
  platform: NodeJS.Platform,
): TrustSystem | undefined | { readonly error: string } => {
  const forced = env.SUPERVISOR_CA_TRUST_SYSTEM
  if (forced !== undefined && forced !== "") {
    if (forced === "debian" || forced === "fedora" || forced === "macos") return forced
    if (forced === "none") return undefined
    return {
      error: `SUPERVISOR_CA_TRUST_SYSTEM=${forced} is not a trust store: set it to debian, fedora, macos or none, or unset it`,
    }
  }
  if (platform === "darwin") return "macos"
  if (findOnPath("update-ca-certificates", searchPath(env)) !== undefined) return "debian"
  if (findOnPath("update-ca-trust", searchPath(env)) !== undefined) return "fedora"
  return undefined
}

/** The file the CA is installed as (Linux), in SUPERVISOR_CA_STORE_DIR when set. */
export const installedFile = (system: "debian" | "fedora", env: Env): string =>
  system === "debian"
    ? nodePath.join(
        env.SUPERVISOR_CA_STORE_DIR || "/usr/local/share/ca-certificates",
        "supervisor-local-ca.crt",
      )
    : nodePath.join(
        env.SUPERVISOR_CA_STORE_DIR || "/etc/pki/ca-trust/source/anchors",
        "supervisor-local-ca.pem",
      )

/** One step of a trust change: a file copied or removed by us, or a command run. */
export type Step =
  | { readonly kind: "copy"; readonly from: string; readonly to: string }
  | { readonly kind: "remove"; readonly file: string }
  | { readonly kind: "run"; readonly argv: ReadonlyArray<string> }

/** A step as the shell command that does the same: what is printed, and what to run by hand. */
export const stepText = (s: Step): string =>
  s.kind === "copy"
    ? `install -m 0644 ${s.from} ${s.to}`
    : s.kind === "remove"
      ? `rm -f ${s.file}`
      : s.argv.map(shellWord).join(" ")

const sha1 = (pem: string) => new crypto.X509Certificate(pem).fingerprint.replace(/:/g, "")

export interface TrustPlan {
  readonly system: TrustSystem
  readonly steps: ReadonlyArray<Step>
  /** Whether the steps need root: the store cannot be written by this user. */
  readonly needsRoot: boolean
  /** The store: a directory or the keychain. */
  readonly store: string
}

/** The nearest existing directory at or above `dir`. */
const existingDir = (dir: string): string =>
  fs.existsSync(dir) || nodePath.dirname(dir) === dir ? dir : existingDir(nodePath.dirname(dir))

const writable = (dir: string) => {
  try {
    fs.accessSync(existingDir(dir), fs.constants.W_OK)
    return fs.statSync(existingDir(dir)).isDirectory()
  } catch {
    return false
  }
}

/** The steps that install (`trust`) or remove (`untrust`) the CA of `stateDir`. */
export const trustPlan = (
  system: TrustSystem,
  action: "trust" | "untrust",
  stateDir: string,
  env: Env,
): TrustPlan => {
  const ca = caPaths(stateDir).cert
  if (system === "macos") {
    const steps: Array<Step> =
      action === "trust"
        ? [
            {
              kind: "run",
              argv: ["security", "add-trusted-cert", "-d", "-r", "trustRoot", "-k", MAC_KEYCHAIN, ca],
            },
          ]
        : [{ kind: "run", argv: ["security", "remove-trusted-cert", "-d", ca] }]
    if (action === "untrust" && fs.existsSync(ca))
      steps.push({
        kind: "run",
        argv: ["security", "delete-certificate", "-Z", sha1(fs.readFileSync(ca, "utf8")), MAC_KEYCHAIN],
      })
    return { system, steps, needsRoot: process.getuid?.() !== 0, store: MAC_KEYCHAIN }
  }
  const file = installedFile(system, env)
  const update = system === "debian" ? ["update-ca-certificates"] : ["update-ca-trust"]
  return {
    system,
    steps: [
      action === "trust" ? { kind: "copy", from: ca, to: file } : { kind: "remove", file },
      { kind: "run", argv: update },
    ],
    needsRoot: !writable(nodePath.dirname(file)),
    store: nodePath.dirname(file),
  }
}

/** Runs one step; a string says what failed. */
export const runStep = (s: Step, env: Env): string | undefined => {
  try {
    if (s.kind === "copy") {
      fs.mkdirSync(nodePath.dirname(s.to), { recursive: true })
      fs.copyFileSync(s.from, s.to)
      fs.chmodSync(s.to, 0o644)
      return undefined
    }
    if (s.kind === "remove") {
      fs.rmSync(s.file, { force: true })
      return undefined
    }
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
  const [cmd = "", ...args] = s.argv
  const found = findOnPath(cmd, searchPath(env)) ?? cmd
  const r = spawnSync(found, args, {
    encoding: "utf8",
    env: { ...env } as NodeJS.ProcessEnv,
    timeout: 120_000,
  })
  if (r.error !== undefined) return `${cmd}: ${r.error.message}`
  if (r.status !== 0) return `${cmd} exited with ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim()}`
  return undefined
}

/**
 * Whether the system trusts the CA of `stateDir`: true when the installed copy equals `ca.pem`
 * (Linux) or the keychain holds it (macOS), false when not, null when the system is unknown.
 */
export const caTrusted = (
  stateDir: string,
  env: Env = process.env,
  platform = process.platform,
): boolean | null => {
  const system = trustSystem(env, platform)
  if (system === undefined || typeof system === "object") return null
  const ca = caPaths(stateDir).cert
  let pem: string
  try {
    pem = fs.readFileSync(ca, "utf8")
  } catch {
    return false
  }
  if (system === "macos") {
    const r = spawnSync("security", ["find-certificate", "-a", "-Z", MAC_KEYCHAIN], { encoding: "utf8" })
    if (r.status !== 0) return null
    return r.stdout.toUpperCase().includes(sha1(pem).toUpperCase())
  }
  try {
    return fs.readFileSync(installedFile(system, env), "utf8") === pem
  } catch {
    return false
  }
}
