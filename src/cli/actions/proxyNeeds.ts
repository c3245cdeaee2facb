// What the proxy still needs before a slug's URL answers: turning on, or a restart of a
// supervisor that read its settings before it was turned on, or a port that was in use. Said by
// `proxy add`, `proxy status` and `settings set proxy.*` (docs/proxy.md#set-up).
import { Effect, Option } from "effect"
import { loadConfig } from "../../config/Loader.js"
import type { SupervisorInfo } from "../../domain/CliOutput.js"
import { effectiveProxy } from "../../domain/proxyUrl.js"
import { stateDir, statePaths } from "../../state/paths.js"
import { isUp, SupervisorClient, supervisorClientLayer } from "../client.js"

const RESTART = "`supervisor supervisor start --force`"

/**
 * What is missing, in words, or undefined when the proxy serves (or will, with the next
 * supervisor). `changed`: a proxy setting just written (`settings.proxy.port`), which a running
 * supervisor reads only when it starts.
 */
export const proxyNeed = (
  enabled: boolean,
  running: Option.Option<SupervisorInfo>,
  changed?: string,
): string | undefined => {
  // turned off just now: only a supervisor that still serves it needs a word
  if (!enabled && changed === "settings.proxy.enable")
    return Option.isSome(running) && running.value.proxy_url !== undefined
      ? `the running supervisor serves the proxy until it restarts (${RESTART})`
      : undefined
  if (!enabled)
    return `the proxy is off: turn it on with \`supervisor settings set proxy.enable true --global\`, then restart the supervisor (${RESTART})`
  if (Option.isNone(running)) return undefined
  const info = running.value
  if (info.proxy_problem !== undefined)
    return `the proxy is ${info.proxy_problem}; then restart the supervisor (${RESTART})`
  if (info.proxy_url === undefined)
    return `the proxy is on, but the running supervisor started before: restart it (${RESTART}) to serve it`
  if (changed !== undefined)
    return `the running supervisor reads ${changed} when it starts: restart it (${RESTART})`
  return undefined
}

/**
 * The need as the supervisor sees it: `settings.proxy.enable` from the files it reads (the user
 * and system ones, not a project's) and what the running one, if any, serves; undefined when
 * those files do not load (their errors are said elsewhere).
 */
export const currentProxyNeed = (changed?: string) =>
  Effect.gen(function* () {
    const global = yield* loadConfig({ cwd: "/", env: process.env }).pipe(Effect.option)
    if (Option.isNone(global)) return undefined
    const running = (yield* isUp(statePaths(stateDir(process.env)).socket))
      ? yield* Effect.flatMap(SupervisorClient, (c) => c.api.cli.info({ urlParams: {} })).pipe(
          Effect.provide(supervisorClientLayer({ autoStart: false })),
          Effect.option,
        )
      : Option.none<SupervisorInfo>()
    return proxyNeed(effectiveProxy(global.value.settings).enable, running, changed)
  })
