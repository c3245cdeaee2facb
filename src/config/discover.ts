import * as nodePath from "node:path"

export type ConfigLevel = "system" | "user" | "project"

/** A configuration file location, in load order. */
export interface ConfigLocation {
  readonly path: string
  readonly level: ConfigLevel
  /** `supervisor.local.toml` or `.config/supervisor.local.toml` */
  readonly local: boolean
  /** The project directory (the parent of `.config` for files inside it); relative paths resolve from here. */
  readonly baseDir: string
  /** The non-local file this `.local` file shares its namespace with. */
  readonly sibling?: string
}

export interface DiscoverOptions {
  readonly cwd: string
  readonly home: string
  readonly env: Readonly<Record<string, string | undefined>>
}

export const PROJECT_FILES: ReadonlyArray<{
  readonly rel: string
  readonly local: boolean
  readonly sibling?: string
}> = [
  { rel: ".config/supervisor.toml", local: false },
  { rel: ".config/supervisor.local.toml", local: true, sibling: ".config/supervisor.toml" },
  { rel: "supervisor.toml", local: false },
  { rel: "supervisor.local.toml", local: true, sibling: "supervisor.toml" },
]

export const systemConfigDir = (env: DiscoverOptions["env"]) =>
  env.SUPERVISOR_SYSTEM_CONFIG_DIR || "/etc/supervisor"
export const userConfigDir = (env: DiscoverOptions["env"], home: string) =>
  env.SUPERVISOR_CONFIG_DIR || nodePath.join(home, ".config", "supervisor")

/**
 * Every place a configuration file may live, lowest precedence first:
 * system, user, then each directory from `/` down to `cwd`.
 * Existence is checked by the caller.
 */
export const candidateLocations = (o: DiscoverOptions): Array<ConfigLocation> => {
  const sys = systemConfigDir(o.env)
  const user = userConfigDir(o.env, o.home)
  const out: Array<ConfigLocation> = [
    { path: nodePath.join(sys, "config.toml"), level: "system", local: false, baseDir: sys },
    { path: nodePath.join(user, "config.toml"), level: "user", local: false, baseDir: user },
  ]
  const cwd = nodePath.resolve(o.cwd)
  const dirs: Array<string> = []
  for (let d = cwd; ; d = nodePath.dirname(d)) {
    dirs.unshift(d)
    if (nodePath.dirname(d) === d) break
  }
  // With cwd inside `.config`, `.config/supervisor.toml` of the parent is also `supervisor.toml`
  // of `.config`: list each file once, at its first (parent's `.config/`) position.
  const seen = new Set<string>()
  for (const dir of dirs) {
    for (const f of PROJECT_FILES) {
      const path = nodePath.join(dir, f.rel)
      if (seen.has(path)) continue
      seen.add(path)
      out.push({
        path,
        level: "project",
        local: f.local,
        baseDir: dir,
        ...(f.sibling ? { sibling: nodePath.join(dir, f.sibling) } : {}),
      })
    }
  }
  return out
}
