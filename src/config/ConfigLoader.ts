import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { MAX_PROJECTS } from "../state/State.js"
import { makeConfigCache } from "./cache.js"
import type { LoadOptions, loadConfig } from "./Loader.js"

export type LoadError = Effect.Effect.Error<ReturnType<typeof loadConfig>>

export interface ConfigLoaderShape {
  /** The configuration seen from a directory with an environment (`loadConfig`). */
  readonly load: (options: LoadOptions) => Effect.Effect<ResolvedConfig, LoadError>
}

/** How the supervisor reads projects' configurations: one cache for every reader. */
export class ConfigLoader extends Context.Tag("supervisor/ConfigLoader")<ConfigLoader, ConfigLoaderShape>() {}

/** Loads through one cache (`makeConfigCache`): a configuration is read again only when a file changed. */
export const ConfigLoaderLive = Layer.effect(
  ConfigLoader,
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    // every known project (MAX_PROJECTS noted, plus registered ones) is reloaded every
    // watch_interval: room for all of them, so that an unchanged one is never parsed again
    const cached = makeConfigCache({ capacity: 4 * MAX_PROJECTS })
    return { load: (options) => cached(options).pipe(Effect.provideService(FileSystem.FileSystem, fs)) }
  }),
)
