// What templates render for a daemon of this supervisor (docs/templates.md): its own values, the
// ports and proxy URLs of the daemons it knows, its settings, and an environment given by the caller.
import { Effect, Option } from "effect"
import { ConfigLoader } from "../config/ConfigLoader.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { type EffectiveProxy, effectiveProxy, proxyUrlOf } from "../domain/proxyUrl.js"
import type { Settings } from "../domain/Settings.js"
import { hostLabelOf, type Slugs } from "../domain/slugs.js"
import { daemonRefs } from "../domain/Template.js"
import { ownScope, type TemplateScope } from "../domain/TemplateRender.js"
import { templatedValues } from "../domain/templatedValues.js"
import { GLOBAL_DIR } from "../registry/snapshot.js"
import type { DaemonState } from "./DaemonState.js"

/** The slugs and the proxy in force: who has a proxy URL, and what it is. */
export interface TemplateProxyView {
  readonly slugs: Slugs
  readonly proxy: EffectiveProxy
}

/** A daemon's ports: its latest run's, else its configured ones. */
const portsOf = (r: DaemonState): ReadonlyArray<number> =>
  r.ports.length > 0 ? r.ports : (r.def.config.port?.expect ?? [])

/** The scope of `def` given the daemons the supervisor knows (its own record among them). */
export const templateScopeOf = (
  def: DaemonDefinition,
  known: ReadonlyMap<string, DaemonState>,
  settings: Settings,
  view: TemplateProxyView,
  env: Readonly<Record<string, string | undefined>>,
): TemplateScope => {
  const self = known.get(def.id.qualified)
  return {
    daemon: ownScope(def, self === undefined ? (def.config.port?.expect ?? []) : portsOf(self)),
    daemons: (id) => {
      // a replicated daemon by its own name: its first instance
      const r = known.get(id) ?? known.get(`${id}.1`)
      return r === undefined
        ? undefined
        : { ports: portsOf(r), proxyUrl: proxyUrlOf(hostLabelOf(r.def, view.slugs), view.proxy) }
    },
    settings,
    env,
  }
}

/** Whether a template of the daemon names a proxy URL. */
const usesProxyUrl = (def: DaemonDefinition): boolean =>
  templatedValues(def.config).some((v) => daemonRefs(v.value, v.syntax).some((r) => r.field === "proxy_url"))

/**
 * Makes the scope of a daemon with the environment `{{ env.VAR }}` reads. The slugs are read
 * from the global configuration (through the loader's cache: `proxy add` is seen at once) only
 * for a daemon whose templates name a proxy URL; else, or when it does not load, the supervisor's.
 */
export const makeTemplateScope = (known: Effect.Effect<ReadonlyMap<string, DaemonState>>) =>
  Effect.gen(function* () {
    const config = yield* SupervisorConfig
    const loader = yield* Effect.serviceOption(ConfigLoader)
    const started: TemplateProxyView = { slugs: config.slugs ?? {}, proxy: effectiveProxy(config.settings) }
    const view = (def: DaemonDefinition): Effect.Effect<TemplateProxyView> =>
      Option.isNone(loader) || !usesProxyUrl(def)
        ? Effect.succeed(started)
        : loader.value.load({ cwd: GLOBAL_DIR, env: config.env }).pipe(
            Effect.map((c) => ({ slugs: c.slugs, proxy: effectiveProxy(c.settings) })),
            Effect.orElseSucceed(() => started),
          )
    return (def: DaemonDefinition, env: Readonly<Record<string, string | undefined>>) =>
      Effect.map(Effect.all([known, view(def)]), ([k, v]) => templateScopeOf(def, k, config.settings, v, env))
  })
