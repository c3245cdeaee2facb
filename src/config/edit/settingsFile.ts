// `settings set`: which file a setting is written to, and the checked, atomic write of it.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Data, Effect, Either } from "effect"
import { formatProblem } from "../../domain/ConfigProblem.js"
import { type ConfigLocation, candidateLocations, PROJECT_FILES, userConfigDir } from "../discover.js"
import { parseConfigText } from "../parseFile.js"
import { projectSettingWarnings } from "../settings.js"
import { hasTomlKey, setTomlValue, tomlValueText } from "./tomlEdit.js"
import { writeTomlAtomic } from "./tomlEditWrite.js"

/** Where `settings set` writes: the project's file, its local file, or the user's file. */
export type SettingsScope = "project" | "local" | "global"

/** A write refused; the file is untouched. */
export class SettingsWriteRefused extends Data.TaggedError("SettingsWriteRefused")<{
  readonly message: string
}> {}

/**
 * The file of `scope` seen from `cwd`: the nearest project's
 * `supervisor.toml` (or `.config/supervisor.toml` when that is the one it has), its
 * `supervisor.local.toml` beside it, or the user's `config.toml`. A project without a file yet
 * is the current directory.
 */
export const settingsTarget = (
  cwd: string,
  scope: SettingsScope,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): ConfigLocation => {
  if (scope === "global") {
    const dir = userConfigDir(env, home)
    return { path: nodePath.join(dir, "config.toml"), level: "user", local: false, baseDir: dir }
  }
  // read without loading: a configuration with problems elsewhere can still be edited
  const nearest = candidateLocations({ cwd, home, env })
    .filter((l) => l.level === "project" && fs.existsSync(l.path))
    .at(-1)
  // the project's directory and whether its files live in `.config/`
  const baseDir =
    nearest === undefined
      ? nodePath.resolve(cwd)
      : nodePath.basename(nodePath.dirname(nearest.path)) === ".config"
        ? nodePath.dirname(nodePath.dirname(nearest.path))
        : nodePath.dirname(nearest.path)
  const inConfigDir = nearest !== undefined && nodePath.basename(nodePath.dirname(nearest.path)) === ".config"
  const file = PROJECT_FILES.find(
    (f) => f.local === (scope === "local") && f.rel.startsWith(".config/") === inConfigDir,
  )!
  const path = nodePath.join(baseDir, file.rel)
  return {
    path,
    level: "project",
    local: file.local,
    baseDir,
    ...(file.sibling ? { sibling: nodePath.join(baseDir, file.sibling) } : {}),
  }
}

export interface SettingWritten {
  readonly path: string
  readonly created: boolean
  /** The loader's warnings about the file as written (a setting with no effect in a project file). */
  readonly warnings: ReadonlyArray<string>
}

/**
 * Writes `settings.GROUP.KEY = value` into the file at `location` with a format-preserving edit,
 * after checking the whole resulting file as the loader reads it; refuses, leaving the file as it
 * was, when the edit cannot be made or the result would not load.
 */
export const writeSetting = (
  location: ConfigLocation,
  group: string,
  key: string,
  value: string | number | boolean,
): Effect.Effect<SettingWritten, SettingsWriteRefused> =>
  Effect.gen(function* () {
    const refuse = (why: string) =>
      new SettingsWriteRefused({ message: `not written to ${location.path}: ${why}` })
    const exists = fs.existsSync(location.path)
    const before = yield* Effect.try({
      try: () => (exists ? fs.readFileSync(location.path, "utf8") : ""),
      catch: (e) => refuse(`cannot read it (${(e as Error).message})`),
    })
    // a key of a top-level [general] (pitchfork's spelling of [settings.general]) is edited there
    const legacy =
      group === "general" && !hasTomlKey(before, ["settings", group, key]) && hasTomlKey(before, [group, key])
    const edited = setTomlValue(
      before,
      legacy ? [group, key] : ["settings", group, key],
      tomlValueText(value),
    )
    if (Either.isLeft(edited)) return yield* refuse(edited.left)
    const checked = parseConfigText(location, edited.right)
    if (checked.problems.length > 0)
      return yield* refuse(
        `the file would not load:\n${checked.problems.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
      )
    yield* Effect.try({
      try: () => writeTomlAtomic(location.path, edited.right),
      catch: (e) => refuse(`cannot write it (${(e as Error).message})`),
    })
    const warnings =
      location.level === "project"
        ? projectSettingWarnings(location.path, checked.settings).filter((w) =>
            w.includes(`settings.${group}.${key} `),
          )
        : []
    return { path: location.path, created: !exists, warnings }
  })
