// The slugs and proxy settings in force for the supervisor: read from the global configuration
// on each use (through the loader's cache), so that `proxy add` is seen at once.
import { Effect, SubscriptionRef } from "effect"
import type { ConfigLoaderShape } from "../config/ConfigLoader.js"
import type { SupervisorConfigShape } from "../config/SupervisorConfig.js"
import { type EffectiveProxy, effectiveProxy } from "../domain/proxyUrl.js"
import type { Slugs } from "../domain/slugs.js"
import type { ProjectRegistryShape } from "../registry/ProjectRegistry.js"
import { GLOBAL_DIR } from "../registry/snapshot.js"

export interface ProxyView {
  readonly slugs: Slugs
  readonly proxy: EffectiveProxy
}

/** The current view; when the global files do not load, the registry's last good one (else the start's). */
export const proxyView = (
  loader: ConfigLoaderShape,
  projects: ProjectRegistryShape,
  config: SupervisorConfigShape,
): Effect.Effect<ProxyView> =>
  loader.load({ cwd: GLOBAL_DIR, env: config.env }).pipe(
    Effect.map((c) => ({ slugs: c.slugs, proxy: effectiveProxy(c.settings) })),
    Effect.orElse(() =>
      Effect.map(SubscriptionRef.get(projects.snapshot), (snap) => {
        const global = snap.projects.find((p) => p.dir === GLOBAL_DIR)?.config
        return { slugs: global?.slugs ?? config.slugs ?? {}, proxy: effectiveProxy(snap.settings) }
      }),
    ),
  )
