import type { FileSystem } from "@effect/platform"
import { Effect, Either } from "effect"
import { envFileFailureText, readEnvFiles } from "../config/envFiles.js"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { TemplateError } from "../domain/TemplateError.js"
import { renderTemplateValue, type TemplateScope } from "../domain/TemplateRender.js"

/** The top-level `[env]` of a daemon's files with its templates rendered (as its own `env` is). */
export const renderSharedEnv = (
  config: Pick<DaemonConfig, "shared_env">,
  scope: TemplateScope,
): Either.Either<Record<string, string>, TemplateError> =>
  Either.gen(function* () {
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(config.shared_env))
      env[name] = yield* renderTemplateValue(`env.${name}`, value, scope, "shell")
    return env
  })

/**
 * What a daemon's env files and the top-level `[env]` set over the supervisor's environment
 * `base`, lowest first: top-level `env_file`, top-level `[env]`, the daemon's `env_file`
 * (docs/configuration.md, "Environment"); the daemon's own `env` goes over these. The files are
 * read now, at each start; a file's `${VAR}` sees everything below it, and `sharedEnv` renders
 * the `[env]` table given what lies below it.
 */
export const layeredEnv = <R>(
  base: Readonly<Record<string, string | undefined>>,
  config: Pick<DaemonConfig, "shared_env_file" | "env_file">,
  sharedEnv: (
    below: Readonly<Record<string, string | undefined>>,
  ) => Effect.Effect<Record<string, string>, TemplateError, R>,
): Effect.Effect<Record<string, string>, string, FileSystem.FileSystem | R> =>
  Effect.gen(function* () {
    const env: Record<string, string> = {}
    const below = (name: string) => (Object.hasOwn(env, name) ? env[name] : base[name])
    Object.assign(env, yield* readEnvFiles(config.shared_env_file, below))
    Object.assign(env, yield* sharedEnv({ ...base, ...env }).pipe(Effect.mapError((e) => e.message)))
    Object.assign(env, yield* readEnvFiles(config.env_file, below))
    return env
  }).pipe(Effect.mapError((e) => (typeof e === "string" ? e : envFileFailureText(e))))
