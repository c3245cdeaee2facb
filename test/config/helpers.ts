import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Either } from "effect"
import { afterEach, beforeEach } from "vitest"
import { loadConfig } from "../../src/config/Loader.js"
import type { ConfigInvalid, ConfigProblem } from "../../src/domain/ConfigProblem.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"

/** A throwaway directory tree laid out like a machine: a fake HOME, /etc and a project. */
export interface Sandbox {
  /** The unique temp root; everything lives under it. */
  readonly root: string
  /** The fake home directory (`<root>/home`). */
  readonly home: string
  /** The fake system config dir (`<root>/etc/supervisor`). */
  readonly systemDir: string
  /** The fake user config dir (`<root>/home/.config/supervisor`). */
  readonly userDir: string
  /** The environment passed to the loader: HOME and both config-dir overrides. */
  readonly env: Record<string, string>
  /** Absolute path of a path relative to the root. */
  readonly path: (rel: string) => string
  /** Writes each `{ relPath: content }` under the root, creating parent directories. */
  readonly write: (files: Readonly<Record<string, string>>) => void
  /** Creates (empty) directories under the root. */
  readonly mkdir: (...rels: ReadonlyArray<string>) => void
  readonly cleanup: () => void
}

export const makeSandbox = (): Sandbox => {
  // realpath: on some systems os.tmpdir() is a symlink, and the loader resolves paths as given.
  const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-config-test-")))
  const home = nodePath.join(root, "home")
  const systemDir = nodePath.join(root, "etc", "supervisor")
  const userDir = nodePath.join(home, ".config", "supervisor")
  fs.mkdirSync(home, { recursive: true })
  const path = (rel: string) => nodePath.join(root, rel)
  return {
    root,
    home,
    systemDir,
    userDir,
    env: { HOME: home, SUPERVISOR_SYSTEM_CONFIG_DIR: systemDir, SUPERVISOR_CONFIG_DIR: userDir },
    path,
    write: (files) => {
      for (const [rel, content] of Object.entries(files)) {
        const abs = path(rel)
        fs.mkdirSync(nodePath.dirname(abs), { recursive: true })
        fs.writeFileSync(abs, content)
      }
    },
    mkdir: (...rels) => {
      for (const rel of rels) fs.mkdirSync(path(rel), { recursive: true })
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  }
}

export interface LoadArgs {
  /** cwd relative to the sandbox root (created if missing). */
  readonly cwd: string
  /** Extra environment, merged over the sandbox's. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Replace the sandbox env entirely (HOME etc. are then only what is given here). */
  readonly replaceEnv?: Readonly<Record<string, string | undefined>>
  /** Passed as the `home` option. */
  readonly home?: string
}

/** Runs loadConfig against the real file system and returns the Either. */
export const load = (sb: Sandbox, args: LoadArgs): Promise<Either.Either<ResolvedConfig, ConfigInvalid>> => {
  const cwd = sb.path(args.cwd)
  fs.mkdirSync(cwd, { recursive: true })
  const env = args.replaceEnv ?? { ...sb.env, ...args.env }
  return Effect.runPromise(
    loadConfig({ cwd, env, ...(args.home !== undefined ? { home: args.home } : {}) }).pipe(
      Effect.either,
      Effect.provide(NodeFileSystem.layer),
    ),
  )
}

/** Loads and expects success; throws with the formatted problems otherwise. */
export const loadOk = async (sb: Sandbox, args: LoadArgs): Promise<ResolvedConfig> => {
  const r = await load(sb, args)
  if (Either.isLeft(r)) throw new Error(`expected the config to load, got:\n${r.left.message}`)
  return r.right
}

/** Loads and expects a ConfigInvalid; returns it. */
export const loadErr = async (sb: Sandbox, args: LoadArgs): Promise<ConfigInvalid> => {
  const r = await load(sb, args)
  if (Either.isRight(r)) throw new Error(`expected ConfigInvalid, got a config:\n${JSON.stringify(r.right)}`)
  return r.left
}

/** The only problem with the given tag; fails if there is not exactly one. */
export const only = <T extends ConfigProblem["_tag"]>(
  err: ConfigInvalid,
  tag: T,
): Extract<ConfigProblem, { _tag: T }> => {
  const found = err.problems.filter((p) => p._tag === tag)
  if (found.length !== 1) throw new Error(`expected exactly one ${tag}, got ${found.length}:\n${err.message}`)
  return found[0] as Extract<ConfigProblem, { _tag: T }>
}

export const tags = (err: ConfigInvalid): Array<string> => err.problems.map((p) => p._tag)

/** A fresh sandbox per test, removed afterwards. */
export const useSandbox = (): (() => Sandbox) => {
  let current: Sandbox | undefined
  beforeEach(() => {
    current = makeSandbox()
  })
  afterEach(() => {
    current?.cleanup()
    current = undefined
  })
  return () => {
    if (!current) throw new Error("sandbox used outside a test")
    return current
  }
}

/** TOML text from lines (line N of the file is argument N), with a trailing newline. */
export const toml = (...lines: ReadonlyArray<string>): string => `${lines.join("\n")}\n`
