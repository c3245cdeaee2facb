// A slug of the user config (`[slugs]`) typed where a daemon ID goes (`start shop`, as pitchfork
// takes it): the slug's project is read so that its daemon resolves and starts from anywhere.
import { Effect } from "effect"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

/**
 * `config` with the daemons of each project a typed slug points to, each read by `load` from the
 * slug's directory (a project that does not load adds nothing, and resolving the slug then says
 * so). IDs that name no slug leave it as it is.
 */
export const withSlugProjects = <E, R>(
  config: ResolvedConfig,
  ids: ReadonlyArray<string>,
  load: (dir: string) => Effect.Effect<ResolvedConfig, E, R>,
) =>
  Effect.gen(function* () {
    const dirs = [
      ...new Set(
        ids
          .filter((id) => !id.includes("/") && Object.hasOwn(config.slugs, id))
          .map((id) => config.slugs[id]!.dir),
      ),
    ]
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
