import { DaemonConfig } from "./DaemonConfig.js"
import type { DaemonDefinition } from "./DaemonDefinition.js"
import type { ResolvedConfig } from "./ResolvedConfig.js"

/** What a secret's value is shown as (docs/configuration.md, "Secrets"). */
export const MASK = "***"

/**
 * Whether a variable name is a secret by `patterns`: comma-separated globs (`*` any text, `?` one
 * character), matched against the whole name, case-insensitively.
 */
export const secretMatcher = (patterns: string): ((name: string) => boolean) => {
  const globs = patterns
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map(
      (p) =>
        new RegExp(
          `^${p
            .split("")
            .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
            .join("")}$`,
          "i",
        ),
    )
  return (name) => globs.some((g) => g.test(name))
}

/** `env` with the values of secret names replaced by the mask. */
export const maskEnv = (
  env: Readonly<Record<string, string>>,
  isSecret: (name: string) => boolean,
): Record<string, string> =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, isSecret(k) ? MASK : v]))

/** A daemon's configuration as shown outside the supervisor: its `env` and the top-level `[env]` masked. */
export const maskDaemonConfig = (config: DaemonConfig, isSecret: (name: string) => boolean): DaemonConfig =>
  new DaemonConfig({
    ...config,
    env: maskEnv(config.env, isSecret),
    shared_env: maskEnv(config.shared_env, isSecret),
  })

export const maskDefinition = (
  def: DaemonDefinition,
  isSecret: (name: string) => boolean,
): DaemonDefinition => ({
  ...def,
  config: maskDaemonConfig(def.config, isSecret),
})

/** The merged configuration as `config show` prints it: secrets masked by its `general.secret_patterns`. */
export const maskResolvedConfig = (config: ResolvedConfig): ResolvedConfig => {
  const isSecret = secretMatcher(config.settings.general.secret_patterns)
  return {
    ...config,
    daemons: Object.fromEntries(
      Object.entries(config.daemons).map(([id, d]) => [
        id,
        { ...d, config: maskDaemonConfig(d.config, isSecret) },
      ]),
    ),
  }
}
