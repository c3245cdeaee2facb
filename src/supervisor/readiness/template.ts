import { Either } from "effect"
import { daemonRefs } from "../../domain/Template.js"
import { TemplateError } from "../../domain/TemplateError.js"
import { qualifyTemplateName, renderTemplateValue, type TemplateScope } from "../../domain/TemplateRender.js"
import { checkKey, type ReadinessCheck } from "./plan.js"

export { qualifyTemplateName, type TemplateScope } from "../../domain/TemplateRender.js"

/**
 * The check with its templates rendered with `scope` (its `env`: the daemon's environment), or
 * the error naming `key` and the template that cannot be. A rendered `port` must be a port; a
 * rendered `output` pattern must be a valid regex. Readiness checks and health checks (same
 * forms, another key) render through here.
 */
export const renderCheck = (
  check: ReadinessCheck,
  scope: TemplateScope,
  /** The config key errors name: `ready_<kind>` by default, `health.<kind>` for a health check. */
  key: string = checkKey(check),
): Either.Either<ReadinessCheck, TemplateError> => {
  const render = (value: string) => renderTemplateValue(key, value, scope)
  switch (check._tag) {
    case "delay":
      return Either.right(check)
    case "output":
      return Either.flatMap(render(check.pattern), (pattern) => {
        try {
          new RegExp(pattern)
        } catch {
          return Either.left(
            new TemplateError({
              key,
              template: check.pattern,
              reason: "invalid_regex",
              message: `${key}: invalid regular expression ${JSON.stringify(pattern)}`,
            }),
          )
        }
        return Either.right({ ...check, pattern })
      })
    case "http":
      return Either.map(render(check.url), (url) => ({ ...check, url }))
    case "cmd":
      return Either.map(render(check.run), (run) => ({ ...check, run }))
    case "port": {
      if (typeof check.port === "number") return Either.right(check)
      const raw = check.port
      // `{{ daemons.db.port }}` waits for db's listener; any other template, the daemon's own
      const [ref] = daemonRefs(raw)
      const owner =
        ref === undefined ? {} : { owner: qualifyTemplateName(ref.daemon, scope.daemon.namespace) }
      return Either.flatMap(render(raw), (text) => {
        const port = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
        return Number.isInteger(port) && port >= 1 && port <= 65535
          ? Either.right({ ...check, port, ...owner })
          : Either.left(
              new TemplateError({
                key,
                template: raw,
                reason: "not_a_port",
                message: `${key} ${JSON.stringify(raw)} renders to ${JSON.stringify(text)}, which is not a TCP port`,
              }),
            )
      })
    }
  }
}

/** Every check rendered, or the first problem. */
export const renderChecks = (
  checks: ReadonlyArray<ReadinessCheck>,
  scope: TemplateScope,
): Either.Either<ReadonlyArray<ReadinessCheck>, TemplateError> =>
  Either.all(checks.map((c) => renderCheck(c, scope)))
