// A slug of the user config (`[slugs]`) typed where a daemon ID goes (`start shop`, as pitchfork
// takes it, or `start feature-x.shop` for a worktree of its project): the slug's project is read
// so that its daemon resolves and starts from anywhere.
import * as nodePath from "node:path"
import { Effect } from "effect"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { worktreeSlugOf } from "../domain/slugs.js"

/**
 * `config` with the daemons of each project a typed slug points to, each read by `load` from the
 * slug's directory (a project that does not load adds nothing, and resolving the slug then says
 * so), and of each worktree a typed `<worktree>.<slug>` names (`worktreeDir` finds its directory
 * from the slug's). IDs that name no slug leave it as it is.
 */
export const withSlugProjects = <E, R, R2 = never>(
  config: ResolvedConfig,
  ids: ReadonlyArray<string>,
  load: (dir: string) => Effect.Effect<ResolvedConfig, E, R>,
  worktreeDir?: (main: string, label: string) => Effect.Effect<string | undefined, never, R2>,
) =>
  Effect.gen(function* () {
    const slugDirs = ids
      .filter((id) => !id.includes("/") && Object.hasOwn(config.slugs, id))
      .map((id) => config.slugs[id]!.dir)
    const worktreeDirs: Array<string> = []
    if (worktreeDir !== undefined)
      for (const id of ids) {
        const pair = worktreeSlugOf(id, config.slugs)
        if (pair === undefined) continue
        const dir = yield* worktreeDir(nodePath.resolve(config.slugs[pair.slug]!.dir), pair.label)
        if (dir !== undefined) worktreeDirs.push(dir)
      }
    const dirs = [...new Set([...slugDirs, ...worktreeDirs])]
    if (dirs.length === 0) return config
    const loaded = yield* Effect.forEach(dirs, (dir) => load(dir).pipe(Effect.option))
    const daemons = { ...config.daemons }
    for (const project of loaded) {
      if (project._tag === "None") continue
      for (const [id, d] of Object.entries(project.value.daemons))
        if (!Object.hasOwn(daemons, id)) daemons[id] = d
    }
    return { ...config, daemons }
  })
