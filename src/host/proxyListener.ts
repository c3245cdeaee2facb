import { Effect, Layer } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { proxyOptions } from "../proxy/options.js"

/**
 * The reverse proxy (src/proxy/server.ts), loaded only when `settings.proxy.enable` is on: its
 * module, its TLS code and node-forge cost the supervisor about 1.5 MiB of heap and more of RSS
 * (docs/benchmarks.md, memory budget), which a configuration without the proxy does not pay.
 */
export const ProxyListenerWhenEnabled = Layer.unwrapEffect(
  Effect.gen(function* () {
    const { settings } = yield* SupervisorConfig
    if (!proxyOptions(settings).enable) return Layer.empty
    const { ProxyListener } = yield* Effect.promise(() => import("../proxy/server.js"))
    return ProxyListener
  }),
)
