import * as nodePath from "node:path"
import { PROJECT_FILES, systemConfigDir, userConfigDir } from "../config/discover.js"
import type { ConfigProblem } from "../domain/ConfigProblem.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { Settings } from "../domain/Settings.js"

/** Why the supervisor knows a project. */
export type ProjectSource =
  /** the global config files (loaded from `/`) */
  | "global"
  /** a CLI command that talks to the supervisor ran there, or the supervisor was started there */
  | "noted"
  /** `POST /api/namespaces` */
  | "registered"
  /** the `[namespaces]` table of the user config */
  | "config"

/** One known project: its last good configuration and what is wrong with its files now. */
export interface ProjectState {
  readonly dir: string
  readonly sources: ReadonlyArray<ProjectSource>
  /** The names it is registered or configured under (`POST /api/namespaces`, `[namespaces]`). */
  readonly names: ReadonlyArray<string>
  /** The last configuration that loaded; undefined while none ever did. */
  readonly config: ResolvedConfig | undefined
  /** The daemons of `config`, by qualified ID. */
  readonly definitions: ReadonlyMap<string, DaemonDefinition>
  /** The problems of the files as they are now: empty when the last load worked. */
  readonly problems: ReadonlyArray<ConfigProblem>
  /** The problems as text (file:line: key: message, and the fix); undefined when none. */
  readonly problem: string | undefined
  /**
   * The directory is gone (a removed worktree): its last configuration stays known until
   * `supervisor worktree prune` forgets it (docs/worktrees.md).
   */
  readonly gone?: boolean | undefined
}

/** What the registry publishes: every known project, and the global settings in force. */
export interface RegistrySnapshot {
  readonly projects: ReadonlyArray<ProjectState>
  readonly settings: Settings
}

export const GLOBAL_DIR = "/"

/** Problems as one text, each formatted as the CLI prints them. */
export const problemText = (problems: ReadonlyArray<ConfigProblem>): string | undefined =>
  problems.length === 0 ? undefined : problems.map(formatProblem).join("\n")

/** The project's namespace as its configuration gives it, else the first name it is known under. */
export const projectNamespace = (p: ProjectState): string | undefined => p.config?.namespace ?? p.names[0]

/** The definitions of `ids` (an unknown one has none), each the first project's as in `allDefinitions`. */
export const definitionsOf = (
  snapshot: RegistrySnapshot,
  ids: ReadonlyArray<string>,
): ReadonlyArray<DaemonDefinition> => {
  const out: Array<DaemonDefinition> = []
  for (const id of ids)
    for (const p of snapshot.projects) {
      const def = p.definitions.get(id)
      if (def === undefined) continue
      out.push(def)
      break
    }
  return out
}

/** Every known daemon's current definition, each once (the first project that configures it wins). */
export const allDefinitions = (snapshot: RegistrySnapshot): ReadonlyArray<DaemonDefinition> => {
  const out = new Map<string, DaemonDefinition>()
  for (const p of snapshot.projects) for (const [id, def] of p.definitions) if (!out.has(id)) out.set(id, def)
  return [...out.values()]
}

/**
 * The files whose change can change a project's configuration: the project's own candidate files
 * (they may be created later), the global files, and every file its last configuration came from.
 */
export const watchedFiles = (
  p: ProjectState,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): ReadonlyArray<string> => [
  nodePath.join(systemConfigDir(env), "config.toml"),
  nodePath.join(userConfigDir(env, home), "config.toml"),
  ...(p.dir === GLOBAL_DIR ? [] : PROJECT_FILES.map((f) => nodePath.join(p.dir, f.rel))),
  ...(p.config?.files.map((f) => f.path) ?? []),
]
