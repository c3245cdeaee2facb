// What the proxy still needs before a slug's URL answers: turning on, or a port that was in
// use. Said by `proxy add`, `proxy status` and `settings set proxy.*` (docs/proxy.md#set-up).
import { Duration, Effect, Option, Schedule } from "effect"
import { loadConfig } from "../../config/Loader.js"
import type { SupervisorInfo } from "../../domain/CliOutput.js"
import { type EffectiveProxy, effectiveProxy, proxyListenerOrigin } from "../../domain/proxyUrl.js"
import { stateDir, statePaths } from "../../state/paths.js"
import { isUp, SupervisorClient, supervisorClientLayer } from "../client.js"

/**
 * What is missing, in words, or undefined when the proxy serves (or nothing serves it and nothing
 * should). `changed`: a proxy setting just written, which the running supervisor applies live.
 */
export const proxyNeed = (
  enabled: boolean,
  running: Option.Option<SupervisorInfo>,
  changed?: string,
): string | undefined => {
  // turned off just now: the running supervisor closes it
  if (!enabled && changed === "settings.proxy.enable") return undefined
  if (!enabled)
    return "the proxy is off: turn it on with `supervisor settings set proxy.enable true --global`"
  if (Option.isNone(running)) return undefined
  const info = running.value
  if (info.proxy_problem !== undefined) return `the proxy is ${info.proxy_problem}`
  if (info.proxy_url === undefined)
    return "the proxy is on, but the running supervisor has not opened it yet: it follows settings.proxy within a moment (`supervisor proxy status` says when)"
  return undefined
}

/**
 * The running supervisor serves (or has given up on) the proxy as `proxy` says it should: its
 * scheme, host, port (any, for 0) and TLD. A supervisor that does not say its TLD is taken at its URL.
 */
export const applied = (info: SupervisorInfo, proxy: EffectiveProxy): boolean => {
  if (!proxy.enable) return info.proxy_url === undefined
  if (info.proxy_problem !== undefined) return true
  const origin = `${proxyListenerOrigin(proxy.https, proxy.host)}:`
  const url = info.proxy_url ?? ""
  const port = url.slice(origin.length)
  return (
    url.startsWith(origin) &&
    (proxy.port === 0 ? /^\d+$/.test(port) : port === String(proxy.port)) &&
    (info.proxy_tld === undefined || info.proxy_tld === proxy.tld)
  )
}

/** How many times `settings set proxy.*` asks whether the running supervisor applied it (5 s). */
const APPLY_TRIES = 50

/**
 * The need as the supervisor sees it: `settings.proxy` from the files it reads (the user and
 * system ones, not a project's) and what the running one, if any, serves; undefined when those
 * files do not load (their errors are said elsewhere). After a change (`changed`), the running
 * supervisor is given a moment to apply it: it reads the files again when they change.
 */
export const currentProxyNeed = (changed?: string) =>
  Effect.gen(function* () {
    const global = yield* loadConfig({ cwd: "/", env: process.env }).pipe(Effect.option)
    if (Option.isNone(global)) return undefined
    const proxy = effectiveProxy(global.value.settings)
    const info = Effect.flatMap(SupervisorClient, (c) => c.api.cli.info({ urlParams: {} })).pipe(
      Effect.provide(supervisorClientLayer({ autoStart: false })),
    )
    // after a change: asked again every 100 ms until it is applied, for at most 5 s
    const settled = info.pipe(
      Effect.filterOrFail((i) => applied(i, proxy)),
      Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), times: APPLY_TRIES }),
      Effect.orElse(() => info),
    )
    const running = (yield* isUp(statePaths(stateDir(process.env)).socket))
      ? yield* (changed === undefined ? info : settled).pipe(Effect.option)
      : Option.none<SupervisorInfo>()
    return proxyNeed(proxy.enable, running, changed)
  })
