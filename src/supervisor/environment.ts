import type { DaemonDefinition } from "../domain/DaemonDefinition.js"

/** Variables of the supervisor's environment that are secrets of the supervisor itself. */
export const SUPERVISOR_SECRETS: ReadonlyArray<string> = ["SUPERVISOR_API_TOKEN"]

/**
 * The environment daemons, hooks, `ready_cmd` and the log archive hook start from: the
 * supervisor's, less its secrets (`SUPERVISOR_API_TOKEN` would let any daemon drive the API).
 */
export const inheritableEnv = (
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> => {
  const out = { ...env }
  for (const name of SUPERVISOR_SECRETS) delete out[name]
  return out
}

const defined = new WeakMap<object, Readonly<Record<string, string>>>()

/** `base` without its undefined values, made once per base (the supervisor's environment). */
const definedOnly = (
  base: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string>> => {
  let known = defined.get(base)
  if (known === undefined) {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v
    known = env
    defined.set(base, known)
  }
  return known
}

/**
 * The environment of a daemon: the supervisor's, then the daemon's `env` (`daemonEnv`: its
 * values with templates rendered), then ours.
 */
export const daemonEnvironment = (
  base: Readonly<Record<string, string | undefined>>,
  def: DaemonDefinition,
  retryCount: number,
  daemonEnv: Readonly<Record<string, string>> = def.config.env,
): Record<string, string> => {
  const env: Record<string, string> = { ...definedOnly(base) }
  Object.assign(env, daemonEnv)
  env.SUPERVISOR_DAEMON_ID = def.id.qualified
  env.SUPERVISOR_DAEMON_NAMESPACE = def.id.namespace
  env.SUPERVISOR_RETRY_COUNT = String(retryCount)
  return env
}

/** How a daemon's run is spawned; what `ready_cmd` and hooks inherit: its environment and user. */
export interface RunAs {
  readonly env: Readonly<Record<string, string>>
  readonly uid?: number
  readonly gid?: number
}

/** `general.shell` ("sh -c") as an argv prefix. */
export const shellArgv = (shell: string): Array<string> => shell.trim().split(/\s+/)
