import { Either } from "effect"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { TemplateError } from "../domain/TemplateError.js"
import { renderTemplateValue, type TemplateScope } from "../domain/TemplateRender.js"

/** A daemon's `run` and `env` as they are spawned: templates rendered. */
export interface RenderedCommand {
  readonly run: string
  /** The daemon's `env` table, its values rendered. */
  readonly env: Readonly<Record<string, string>>
  /** The environment the process gets (`layers.environment` of the rendered `env`). */
  readonly environment: Readonly<Record<string, string>>
}

/** How a daemon's environment is made of its `env` table. */
export interface EnvironmentLayers {
  /** The environment the `env` table is laid over: what `{{ env.VAR }}` reads in its values. */
  readonly below: Readonly<Record<string, string | undefined>>
  /** The whole environment of the process, given the rendered `env` table: what `run` reads. */
  readonly environment: (env: Readonly<Record<string, string>>) => Readonly<Record<string, string>>
}

/**
 * `run` and every `env` value with their templates rendered (shell syntax: any other `{{ ... }}`
 * is the command's own text), or the error naming the key and the template that cannot be
 * rendered. `{{ env.VAR }}` in an `env` value reads the environment below the table; in `run`, the
 * process's whole environment. Rendered at each spawn, with the ports of that moment.
 */
export const renderCommand = (
  config: Pick<DaemonConfig, "run" | "env">,
  scope: TemplateScope,
  layers: EnvironmentLayers,
): Either.Either<RenderedCommand, TemplateError> =>
  Either.gen(function* () {
    const below = { ...scope, env: layers.below }
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(config.env))
      env[name] = yield* renderTemplateValue(`env.${name}`, value, below, "shell")
    const environment = layers.environment(env)
    const run = yield* renderTemplateValue("run", config.run, { ...scope, env: environment }, "shell")
    return { run, env, environment }
  })
