import type { FileSystem } from "@effect/platform"
import { Effect, Either } from "effect"
import { envFileFailureText, readEnvFiles } from "../config/envFiles.js"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { TemplateError } from "../domain/TemplateError.js"
import { type PortLookup, renderTemplateValue } from "./readiness/template.js"

/** The top-level `[env]` of a daemon's files with its templates rendered (as its own `env` is). */
export const renderSharedEnv = (
  config: Pick<DaemonConfig, "shared_env">,
  namespace: string,
  lookup: PortLookup,
): Either.Either<Record<string, string>, TemplateError> =>
  Either.gen(function* () {
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(config.shared_env))
      env[name] = yield* renderTemplateValue(`env.${name}`, value, namespace, lookup, "shell")
    return env
  })

/**
 * What a daemon's env files and env tables set over the supervisor's environment `base`, lowest
 * first: top-level `env_file`, top-level `[env]`, the daemon's `env_file`, its `env`
 * (docs/configuration.md, "Environment"). The files are read now, at each start; a file's
 * `${VAR}` sees everything below it. `PORT` and the supervisor's variables go on top later.
 */
export const layeredEnv = (
  base: Readonly<Record<string, string | undefined>>,
  config: Pick<DaemonConfig, "shared_env_file" | "env_file">,
  sharedEnv: Readonly<Record<string, string>>,
  daemonEnv: Readonly<Record<string, string>>,
): Effect.Effect<Record<string, string>, string, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const env: Record<string, string> = {}
    const below = (name: string) => (Object.hasOwn(env, name) ? env[name] : base[name])
    Object.assign(env, yield* readEnvFiles(config.shared_env_file, below))
    Object.assign(env, sharedEnv)
    Object.assign(env, yield* readEnvFiles(config.env_file, below))
    Object.assign(env, daemonEnv)
    return env
  }).pipe(Effect.mapError(envFileFailureText))
