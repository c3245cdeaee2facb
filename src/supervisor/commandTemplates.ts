import { Either } from "effect"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { TemplateError } from "../domain/TemplateError.js"
import { type PortLookup, renderTemplateValue } from "./readiness/template.js"

/** A daemon's `run` and `env` as they are spawned: templates rendered. */
export interface RenderedCommand {
  readonly run: string
  readonly env: Readonly<Record<string, string>>
}

/**
 * `run` and every `env` value with their `{{ daemons.<name>.port }}` templates rendered (shell
 * syntax: any other `{{ ... }}` is the command's own text), or the error naming the key and the
 * template that cannot be rendered. Rendered at each spawn, with the ports of that moment.
 */
export const renderCommand = (
  config: Pick<DaemonConfig, "run" | "env">,
  namespace: string,
  lookup: PortLookup,
): Either.Either<RenderedCommand, TemplateError> =>
  Either.gen(function* () {
    const run = yield* renderTemplateValue("run", config.run, namespace, lookup, "shell")
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(config.env))
      env[name] = yield* renderTemplateValue(`env.${name}`, value, namespace, lookup, "shell")
    return { run, env }
  })
