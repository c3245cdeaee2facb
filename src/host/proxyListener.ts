import { Console, Duration, Effect, ExecutionStrategy, Exit, Layer, Option, Ref, Scope, Stream } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { HostInfo } from "../domain/HostInfo.js"
import { type ProxyOptions, proxyOptions } from "../proxy/options.js"
import type { ProxyServing } from "../proxy/server.js"
import { LiveSettings } from "../registry/liveSettings.js"

/** How long the connections of a replaced listener may take to finish before they are closed. */
const DRAIN = Duration.seconds(30)

/** A listener that serves, in its own scope. */
interface Serving {
  readonly scope: Scope.CloseableScope
  readonly proxy: ProxyServing
}

const sameOptions = (a: ProxyOptions, b: ProxyOptions) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The reverse proxy (src/proxy/server.ts), following `[settings.proxy]` live: enabling,
 * disabling, a new port, host, TLD or scheme open a new listener without a supervisor restart;
 * the old one stops taking connections at once and its open connections finish (for up to 30 s).
 * The proxy's module, its TLS code and node-forge (about 1.5 MiB of heap, docs/benchmarks.md) are
 * loaded only once the proxy is first enabled.
 */
export const ProxyListenerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { settings } = yield* SupervisorConfig
    const live = yield* LiveSettings
    const host = yield* HostInfo
    const outer = yield* Effect.scope
    const serve = (options: ProxyOptions) =>
      Effect.gen(function* () {
        if (!options.enable) return Option.none<Serving>()
        const { serveProxy } = yield* Effect.promise(() => import("../proxy/server.js"))
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        const proxy = yield* serveProxy(options).pipe(Scope.extend(scope))
        if (proxy === undefined) {
          yield* Scope.close(scope, Exit.void)
          return Option.none<Serving>()
        }
        return Option.some<Serving>({ scope, proxy })
      })
    // the first listener is up (or said why not) before the supervisor says it listens
    const first = proxyOptions(settings)
    const current = yield* Ref.make({ options: first, serving: yield* serve(first) })
    const apply = (options: ProxyOptions) =>
      Effect.gen(function* () {
        const before = yield* Ref.get(current)
        if (sameOptions(before.options, options)) return
        if (Option.isSome(before.serving)) {
          const old = before.serving.value
          yield* old.proxy.stopAccepting
          // its connections finish in the background (bounded), then its scope closes them
          yield* Effect.forkIn(
            Effect.zipRight(
              Effect.timeoutOption(old.proxy.drained, DRAIN),
              Scope.close(old.scope, Exit.void),
            ),
            outer,
          )
        }
        yield* Ref.update(host.listeners, (l) => ({
          ...l,
          proxy: undefined,
          proxyTld: undefined,
          proxyProblem: undefined,
        }))
        if (!options.enable) yield* Console.error("proxy: stopped (settings.proxy.enable is off)")
        yield* Ref.set(current, { options, serving: yield* serve(options) })
      })
    yield* live.changes.pipe(Stream.map(proxyOptions), Stream.runForEach(apply), Effect.forkScoped)
  }),
)
