// Rendering a config value's templates with the values of one start (docs/templates.md): the
// daemon's own, the daemons the supervisor knows, the settings in force and an environment.
import { Either, Schema } from "effect"
import type { DaemonDefinition } from "./DaemonDefinition.js"
import { effectiveProxy } from "./proxyUrl.js"
import { type SettingGroup, type Settings, settingGroups } from "./Settings.js"
import {
  renderTemplate,
  type TemplateName,
  type TemplateRef,
  type TemplateSyntax,
  templateRefs,
  unknownTemplateMessage,
} from "./Template.js"
import { TemplateError } from "./TemplateError.js"

/** What templates know of another daemon. */
export interface TemplateTarget {
  /** Its ports: its latest run's, else its configured ones. */
  readonly ports: ReadonlyArray<number>
  /** Its address through the proxy: null when no slug names it or the proxy is off. */
  readonly proxyUrl: string | null
}

/** Everything a template may name, for one daemon at one moment. */
export interface TemplateScope {
  readonly daemon: {
    /** The qualified ID, `namespace/name`. */
    readonly id: string
    readonly name: string
    readonly namespace: string
    readonly dir: string
    /** Which instance it is: "1" to "N" for a daemon with `instances`, "1" for any other. */
    readonly instance: string
    /** The run's resolved ports (after bumping), else the configured ones. */
    readonly ports: ReadonlyArray<number>
  }
  /** Another daemon by qualified ID; undefined when the supervisor knows none. */
  readonly daemons: (qualifiedId: string) => TemplateTarget | undefined
  /** The settings in force; undefined where they are not known (a template naming one is not rendered). */
  readonly settings: Settings | undefined
  /** The environment `{{ env.VAR }}` reads. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The `daemon` part of a scope: `def`'s own names, with `ports`. */
export const ownScope = (def: DaemonDefinition, ports: ReadonlyArray<number>): TemplateScope["daemon"] => ({
  id: def.id.qualified,
  name: def.id.name,
  namespace: def.id.namespace,
  dir: def.config.dir,
  instance: String(def.instance?.index ?? 1),
  ports,
})

/** `{{ daemons.<name>... }}`: a short name means the namespace of the daemon being started. */
export const qualifyTemplateName = (name: string, namespace: string): string =>
  name.includes("/") ? name : `${namespace}/${name}`

/**
 * A setting as a file writes it (`10s`, `true`, `localhost`); an optional one that is not set is
 * empty, but for `proxy.port`, which is the port the proxy uses.
 */
export const settingText = (settings: Settings, key: string): string => {
  const dot = key.indexOf(".")
  const group = key.slice(0, dot) as SettingGroup
  const name = key.slice(dot + 1)
  const schema = settingGroups[group] as unknown as Schema.Schema<unknown, Record<string, unknown>>
  const value = Schema.encodeSync(schema)(settings[group])[name]
  if (value === undefined) return key === "proxy.port" ? String(effectiveProxy(settings).port) : ""
  return typeof value === "string" ? value : String(value)
}

const nameText = (name: TemplateName): string => {
  switch (name._tag) {
    case "DaemonField":
      return `daemon.${name.field}`
    case "DaemonPort":
      return name.index === 0 ? "daemon.port" : `daemon.ports[${name.index}]`
    case "OtherDaemon":
      return `daemons.${name.daemon}.${name.field}`
    case "Env":
      return `env.${name.variable}`
    case "Setting":
      return `settings.${name.key}`
  }
}

type Failure = Pick<TemplateError, "reason" | "message"> & { readonly daemon?: string }

/** The text of one reference, or why it has none. */
const renderRef = (ref: TemplateRef, scope: TemplateScope): Either.Either<string, Failure> => {
  const name = ref.name
  const cannot = `cannot render ${ref.text}`
  switch (name._tag) {
    case "DaemonField":
      return Either.right(scope.daemon[name.field])
    case "DaemonPort": {
      const port = scope.daemon.ports[name.index]
      if (port !== undefined) return Either.right(String(port))
      const has = scope.daemon.ports.length
      return Either.left({
        reason: "no_port",
        daemon: scope.daemon.id,
        message:
          has === 0
            ? `${cannot}: daemon ${scope.daemon.id} has no port (set \`port\` on it)`
            : `${cannot}: daemon ${scope.daemon.id} has ${has} port${has === 1 ? "" : "s"} (ports[0] to ports[${has - 1}])`,
      })
    }
    case "OtherDaemon": {
      const id = qualifyTemplateName(name.daemon, scope.daemon.namespace)
      const known = scope.daemons(id)
      // the daemon itself: the ports of this run
      const target =
        id === scope.daemon.id ? { ports: scope.daemon.ports, proxyUrl: known?.proxyUrl ?? null } : known
      if (target === undefined)
        return Either.left({
          reason: "unknown_daemon",
          daemon: id,
          message: `${cannot}: no daemon ${id} is known to the supervisor (start it first)`,
        })
      if (name.field === "port") {
        const port = target.ports[0]
        return port !== undefined
          ? Either.right(String(port))
          : Either.left({
              reason: "no_port",
              daemon: id,
              message: `${cannot}: daemon ${id} has no port (set \`port\` on it)`,
            })
      }
      const url = target.proxyUrl
      if (url !== null) return Either.right(url)
      const why =
        scope.settings !== undefined && !scope.settings.proxy.enable
          ? "the proxy is off (set settings.proxy.enable = true)"
          : "no slug names it (add one with `supervisor proxy add`)"
      return Either.left({
        reason: "no_proxy_url",
        daemon: id,
        message: `${cannot}: daemon ${id} has no proxy URL: ${why}`,
      })
    }
    case "Env": {
      const value = scope.env[name.variable]
      return value !== undefined
        ? Either.right(value)
        : Either.left({
            reason: "unset_env",
            message: `${cannot}: ${name.variable} is not set in the daemon's environment`,
          })
    }
    case "Setting":
      return scope.settings === undefined
        ? Either.left({ reason: "unknown_variable", message: `${cannot}: the settings are not known here` })
        : Either.right(settingText(scope.settings, name.key))
  }
}

/**
 * `value` of config key `key` with its templates rendered, or the error naming the key, the
 * template and why it cannot be rendered: a name that names nothing, a daemon the supervisor does
 * not know, one without a port or proxy URL, an unset variable.
 */
export const renderTemplateValue = (
  key: string,
  value: string,
  scope: TemplateScope,
  syntax: TemplateSyntax = "strict",
): Either.Either<string, TemplateError> => {
  const fail = (f: Failure) =>
    Either.left(
      new TemplateError({
        key,
        template: value,
        reason: f.reason,
        message: `${key} ${JSON.stringify(value)}: ${f.message}`,
        ...(f.daemon !== undefined && { daemon: f.daemon }),
      }),
    )
  const { refs, unknown } = templateRefs(value, syntax)
  if (unknown !== undefined)
    return fail({ reason: "unknown_variable", message: unknownTemplateMessage(unknown) })
  const texts = new Map<string, string>()
  for (const ref of refs) {
    const text = renderRef(ref, scope)
    if (Either.isLeft(text)) return fail(text.left)
    texts.set(nameText(ref.name), text.right)
  }
  return Either.right(renderTemplate(value, (ref) => texts.get(nameText(ref.name)) ?? ref.text, syntax))
}
