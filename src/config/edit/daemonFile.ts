// The file `daemons add/remove` edits, the check of the edited configuration with the loader
// itself before anything is written, and the atomic write.
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { FileSystem } from "@effect/platform"
import { Data, Effect, Either } from "effect"
import type { ConfigProblem } from "../../domain/ConfigProblem.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { PROJECT_FILES, userConfigDir } from "../discover.js"
import { type LoadOptions, loadConfig } from "../Loader.js"
import { writeTomlAtomic } from "./tomlEditWrite.js"

/** Which file to edit: the project's `supervisor.toml`, its `supervisor.local.toml`, or the user's. */
export type Scope = "project" | "local" | "global"

/** A refused edit: the file untouched, and what to do instead. */
export class DaemonEditRefused extends Data.TaggedError("DaemonEditRefused")<{
  readonly file: string
  readonly line?: number
  readonly key?: string
  readonly problem: string
  readonly hint?: string
}> {
  override get message(): string {
    const where = this.line === undefined ? this.file : `${this.file}:${this.line}`
    const key = this.key === undefined ? "" : `${this.key}: `
    return `${where}: ${key}${this.problem}${this.hint === undefined ? "" : `\n  hint: ${this.hint}`}`
  }
}

/**
 * The project directory: the nearest directory from `cwd` up that has a project file, else
 * `cwd` (where a new `supervisor.toml` is created).
 */
export const projectDir = (cwd: string): string => {
  for (let dir = nodePath.resolve(cwd); ; dir = nodePath.dirname(dir)) {
    if (PROJECT_FILES.some((f) => fs.existsSync(nodePath.join(dir, f.rel)))) return dir
    if (nodePath.dirname(dir) === dir) return nodePath.resolve(cwd)
  }
}

/**
 * The file of a scope: in the project directory `supervisor.toml` (or `.config/supervisor.toml`
 * when only that one exists), the same for `.local`; for `global` the user's `config.toml`.
 */
export const scopeFile = (scope: Scope, options: LoadOptions): string => {
  if (scope === "global")
    return nodePath.join(
      userConfigDir(options.env, options.home ?? (options.env.HOME || os.homedir())),
      "config.toml",
    )
  const dir = projectDir(options.cwd)
  const name = scope === "local" ? "supervisor.local.toml" : "supervisor.toml"
  const candidates = [nodePath.join(dir, name), nodePath.join(dir, ".config", name)]
  return candidates.find((f) => fs.existsSync(f)) ?? candidates[0]!
}

/** The text of a file, "" when it does not exist yet. */
export const readText = (file: string): Effect.Effect<string, DaemonEditRefused> =>
  Effect.try({
    try: () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""),
    catch: (e) =>
      new DaemonEditRefused({
        file,
        problem: `cannot read the file: ${(e as Error).message}`,
        hint: "check its permissions",
      }),
  })

const problemKey = (p: ConfigProblem) => `${p.file}\u0000${p.key ?? ""}\u0000${p.message}`

/**
 * The configuration as the loader sees it with `file` holding `text` (nothing is written);
 * `undefined`: as the files are.
 */
const loadWith = (options: LoadOptions, file: string, text: string | undefined) =>
  Effect.flatMap(FileSystem.FileSystem, (real) => {
    if (text === undefined) return Effect.either(loadConfig(options))
    const overlay: FileSystem.FileSystem = {
      ...real,
      exists: (p) => (p === file ? Effect.succeed(true) : real.exists(p)),
      readFileString: (p, encoding) => (p === file ? Effect.succeed(text) : real.readFileString(p, encoding)),
    }
    return loadConfig(options).pipe(Effect.provideService(FileSystem.FileSystem, overlay), Effect.either)
  })

/**
 * The edited configuration, loaded by the loader with `file` holding `after`: refused with the
 * first problem the edit brings (problems the files already had are not the edit's). `before`:
 * the file's text, undefined when it does not exist yet.
 */
export const checkEdit = (options: LoadOptions, file: string, before: string | undefined, after: string) =>
  Effect.gen(function* () {
    const old = yield* loadWith(options, file, before)
    const known = new Set(Either.isLeft(old) ? old.left.problems.map(problemKey) : [])
    const edited = yield* loadWith(options, file, after)
    if (Either.isRight(edited)) return edited.right as ResolvedConfig
    const added = edited.left.problems.find((p) => !known.has(problemKey(p)))
    if (added === undefined) return undefined
    return yield* new DaemonEditRefused({
      file: added.file,
      ...(added.file === file && added.line !== undefined ? { line: added.line } : {}),
      ...(added.key === undefined ? {} : { key: added.key }),
      problem: added.message,
      hint: added.hint ?? "fix the value and run the command again",
    })
  })

/** Writes `text` to `file` atomically (src/config/edit/tomlEditWrite.ts), as a refusal when it cannot. */
export const writeAtomic = (file: string, text: string): Effect.Effect<void, DaemonEditRefused> =>
  Effect.try({
    try: () => writeTomlAtomic(file, text),
    catch: (e) =>
      new DaemonEditRefused({
        file,
        problem: `cannot write the file: ${(e as Error).message}`,
        hint: "check the directory's permissions",
      }),
  })
