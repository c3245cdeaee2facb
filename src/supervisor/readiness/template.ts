import { Either } from "effect"
import { renderTemplate, type TemplateSyntax, templateRefs } from "../../domain/Template.js"
import { TemplateError } from "../../domain/TemplateError.js"
import { checkKey, type ReadinessCheck } from "./plan.js"

/**
 * What the supervisor knows of the daemon a template names (by qualified ID): undefined when
 * it knows no such daemon, else its first expected port (undefined when it has none).
 */
export type PortLookup = (qualifiedId: string) => { readonly port: number | undefined } | undefined

/** `{{ daemons.<name>.port }}`: a short name means the namespace of the daemon being started. */
export const qualifyTemplateName = (name: string, namespace: string): string =>
  name.includes("/") ? name : `${namespace}/${name}`

/**
 * `value` of config key `key` with its templates rendered, or a message naming the key and the
 * template that cannot be: an unknown variable, a daemon the supervisor does not know, or one
 * without a port.
 */
export const renderTemplateValue = (
  key: string,
  value: string,
  namespace: string,
  lookup: PortLookup,
  syntax: TemplateSyntax = "strict",
): Either.Either<string, TemplateError> => {
  const { refs, unknown } = templateRefs(value, syntax)
  const where = `${key} ${JSON.stringify(value)}`
  const fail = (reason: TemplateError["reason"], message: string, daemon?: string) =>
    Either.left(
      new TemplateError({ key, template: value, reason, message, ...(daemon !== undefined && { daemon }) }),
    )
  if (unknown !== undefined)
    return fail(
      "unknown_variable",
      `${where}: unknown template variable ${JSON.stringify(unknown)}; the only one is {{ daemons.<name>.port }}`,
    )
  const ports = new Map<string, number>()
  for (const ref of refs) {
    const id = qualifyTemplateName(ref.daemon.trim(), namespace)
    const found = lookup(id)
    if (found === undefined)
      return fail(
        "unknown_daemon",
        `${where}: cannot render ${ref.text}: no daemon ${id} is known to the supervisor (start it first)`,
        id,
      )
    if (found.port === undefined)
      return fail(
        "no_port",
        `${where}: cannot render ${ref.text}: daemon ${id} has no port (set \`port\` on it)`,
        id,
      )
    ports.set(ref.daemon, found.port)
  }
  return Either.right(
    renderTemplate(value, (daemon) => String(ports.get(daemon) ?? ports.get(daemon.trim())), syntax),
  )
}

/**
 * The check with its `{{ daemons.<name>.port }}` templates rendered, or a message naming the
 * template that cannot be. A rendered `ready_port` must be a port; a rendered
 * `ready_output` must be a valid regex.
 */
export const renderCheck = (
  check: ReadinessCheck,
  namespace: string,
  lookup: PortLookup,
  /** The config key errors name: `ready_<kind>` by default, `health.<kind>` for a health check. */
  key: string = checkKey(check),
): Either.Either<ReadinessCheck, TemplateError> => {
  const render = (value: string) => renderTemplateValue(key, value, namespace, lookup)
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
      const [ref] = templateRefs(raw).refs
      const owner = ref === undefined ? {} : { owner: qualifyTemplateName(ref.daemon.trim(), namespace) }
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
  namespace: string,
  lookup: PortLookup,
): Either.Either<ReadonlyArray<ReadinessCheck>, TemplateError> =>
  Either.all(checks.map((c) => renderCheck(c, namespace, lookup)))
