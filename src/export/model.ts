import { Duration } from "effect"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { EnvFileRef } from "../domain/EnvFile.js"
import { formatHumanDuration } from "../domain/HumanDuration.js"
import { portEnvironment } from "../domain/portEnvironment.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { renderTemplate } from "../domain/Template.js"
import { instanceIndex } from "./replicas.js"

/** The formats `supervisor export` writes. */
export const EXPORT_TARGETS = ["systemd", "compose", "kubernetes", "nomad"] as const
export type ExportTarget = (typeof EXPORT_TARGETS)[number]

export interface ExportFile {
  /** Relative to the output directory. */
  readonly path: string
  readonly content: string
}

/** What a target writes, and every key it could not carry over (never dropped silently). */
export interface ExportResult {
  readonly files: ReadonlyArray<ExportFile>
  readonly warnings: ReadonlyArray<string>
}

/** Collects the warnings of one export, each naming the daemon and the key. */
export class Warnings {
  readonly list: Array<string> = []
  add(daemon: string, key: string, why: string): void {
    this.list.push(`${daemon}: ${key} ${why}`)
  }
  general(message: string): void {
    this.list.push(message)
  }
}

/** The image a container target uses; the daemons' programs must be in it (a warning says so). */
export const DEFAULT_IMAGE = "debian:stable-slim"

/** What `supervisor export` is told besides the configuration. */
export interface ExportOptions {
  /** Compose and Kubernetes: the image of every daemon without `export.image` (default DEFAULT_IMAGE, with a warning). */
  readonly image?: string | undefined
}

/** The image of a daemon's container: its `export.image`, else --image, else the placeholder. */
export const imageOf = (d: ResolvedDaemon, options: ExportOptions): string =>
  d.config.export?.image ?? options.image ?? DEFAULT_IMAGE

/** One warning naming the daemons left in the placeholder image, and how to set theirs. */
export const warnPlaceholderImage = (
  daemons: ReadonlyArray<ResolvedDaemon>,
  options: ExportOptions,
  w: Warnings,
  target: string,
  where: string,
  holds: string,
): void => {
  const placeholder = daemons.filter((d) => d.config.export?.image === undefined)
  if (placeholder.length === 0 || options.image !== undefined) return
  w.general(
    `${target}: ${
      placeholder.length === daemons.length
        ? "every container runs"
        : `the containers of ${placeholder.map((d) => d.id.qualified).join(", ")} run`
    } image ${DEFAULT_IMAGE} ${where}; set the image that holds ${holds} with --image or export.image`,
  )
}

/**
 * The daemons in a stable order (by qualified ID). Two daemons whose exported names are the same
 * (`shop/a_b` and `shop/a.b` are both `shop--a-b`) would overwrite each other: the later is left
 * out, with a warning.
 */
export const daemonsOf = (config: ResolvedConfig, warnings: Warnings): ReadonlyArray<ResolvedDaemon> => {
  const byName = new Map<string, ResolvedDaemon>()
  // code-unit order: the same on every machine, whatever its locale
  const sorted = Object.values(config.daemons).sort((a, b) =>
    a.id.qualified < b.id.qualified ? -1 : a.id.qualified > b.id.qualified ? 1 : 0,
  )
  for (const d of sorted) {
    const first = byName.get(exportName(d))
    if (first === undefined) byName.set(exportName(d), d)
    else
      warnings.add(
        d.id.qualified,
        "name",
        `is exported as ${exportName(d)}, as ${first.id.qualified} is: left out; rename one of them`,
      )
  }
  return [...byName.values()]
}

/** `text` in lower case with only [a-z0-9-], at most 63: a name every target accepts (DNS-1123 label). */
export const dnsLabel = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)

/** `app--api`: a daemon's name in every target. */
export const exportName = (d: ResolvedDaemon): string => dnsLabel(d.id.safe_path)

/**
 * Renders the templates known without a supervisor: `{{ daemons.<name>.port }}` and
 * `{{ daemon.port }}` (`ports[N]`) with the ports the daemons declare, and the daemon's id, name,
 * namespace and dir. One naming a daemon without that port, an environment variable, a setting or
 * a proxy URL is kept as written, with a warning.
 */
export const renderPorts = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  key: string,
  value: string,
  warnings: Warnings,
): string =>
  renderTemplate(
    value,
    (ref) => {
      const name = ref.name
      switch (name._tag) {
        case "DaemonField":
          if (name.field === "instance") {
            const index = instanceIndex(d)
            // one definition for every replica (not systemd's unit per instance): its index is not known
            if (d.config.instances !== undefined && d.config.instances > 1 && !/\.\d+$/.test(d.id.name))
              warnings.add(d.id.qualified, key, `uses ${ref.text}: every replica is given 1`)
            return String(index)
          }
          return name.field === "dir" ? d.config.dir : d.id[name.field === "id" ? "qualified" : name.field]
        case "DaemonPort": {
          const port = d.config.port?.expect[name.index]
          if (port !== undefined) return String(port)
          warnings.add(
            d.id.qualified,
            key,
            `uses ${ref.text}, which it does not declare: the template is kept as written`,
          )
          return ref.text
        }
        case "OtherDaemon": {
          const target = config.daemons[name.daemon] ?? config.daemons[`${d.id.namespace}/${name.daemon}`]
          const port = target?.config.port?.expect[0]
          if (name.field === "port" && port !== undefined) return String(port)
          warnings.add(
            d.id.qualified,
            key,
            name.field === "port"
              ? `uses the port of ${name.daemon}, which declares no port: the template is kept as written`
              : `uses ${ref.text}, which the supervisor renders at start: the template is kept as written`,
          )
          return ref.text
        }
        default:
          warnings.add(
            d.id.qualified,
            key,
            `uses ${ref.text}, which the supervisor renders at start: the template is kept as written`,
          )
          return ref.text
      }
    },
    "shell",
  )

/**
 * The daemon's `run` and environment with port templates rendered: the top-level `[env]`, its
 * `env`, then `PORT`/`PORTn` of its declared ports (as at a start), then its `export.env`.
 */
export const commandAndEnv = (config: ResolvedConfig, d: ResolvedDaemon, warnings: Warnings) => {
  const c = d.config
  const env = { ...c.shared_env, ...c.env, ...portEnvironment(c.port?.expect ?? []), ...c.export?.env }
  return {
    run: renderPorts(config, d, "run", c.run, warnings),
    env: Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, renderPorts(config, d, `env.${k}`, v, warnings)]),
    ) as Record<string, string>,
  }
}

/** The daemon's env files in the order they are read: the top-level `env_file`, then its own. */
export const envFilesOf = (c: DaemonConfig): ReadonlyArray<EnvFileRef> => [
  ...c.shared_env_file,
  ...c.env_file,
]

/** A target with no env files of its own: a warning naming them, when there are any. */
export const warnEnvFiles = (d: ResolvedDaemon, warnings: Warnings, target: string): void => {
  const files = envFilesOf(d.config)
  if (files.length > 0)
    warnings.add(
      d.id.qualified,
      "env_file",
      `(${files.map((f) => f.path).join(", ")}) is not exported: ${target} has no env files; copy their variables into env`,
    )
}

/** Seconds of a Duration, rounded up to a whole second (at least 1). */
export const wholeSeconds = (d: Duration.Duration): number =>
  Math.max(1, Math.ceil(Duration.toMillis(d) / 1000))

/** The supervisor's own keys no target can carry: one warning each when set. */
export const warnUnmappable = (d: ResolvedDaemon, warnings: Warnings, target: string): void => {
  const c: DaemonConfig = d.config
  const id = d.id.qualified
  if (c.watch.length > 0) warnings.add(id, "watch", `(restart on file change) has no ${target} equivalent`)
  const hooks = Object.keys(c.hooks).filter((k) => c.hooks[k as keyof typeof c.hooks] !== undefined)
  if (hooks.length > 0) warnings.add(id, "hooks", `(${hooks.join(", ")}) have no ${target} equivalent`)
  if (c.auto.length > 0) warnings.add(id, "auto", `(shell hook start/stop) has no ${target} equivalent`)
  if (c.pty) warnings.add(id, "pty", `(pseudo-terminal) has no ${target} equivalent`)
  if (c.tool_manager === true)
    warnings.add(id, "tool_manager", "is not applied: the command is exported as written")
  if (c.port?.bump !== undefined && c.port.bump !== false)
    warnings.add(id, "port.bump", `(shift ports when taken) has no ${target} equivalent`)
  if (c.logs !== undefined) warnings.add(id, "logs", `(log storage) is left to ${target}`)
}

/** "30s" for messages. */
export const durationText = (d: Duration.Duration): string => formatHumanDuration(Duration.toMillis(d))

/** A rendered check URL as a probe needs it: host, port (the scheme's by default), scheme, path. */
export interface HttpProbeTarget {
  readonly href: string
  readonly hostname: string
  readonly port: number
  readonly https: boolean
  readonly path: string
}

/** `text` (a `ready_http` or `health.http` URL once rendered) as a probe's target; undefined when no URL. */
export const httpProbeTarget = (text: string): HttpProbeTarget | undefined => {
  try {
    const url = new URL(text.trim())
    const https = url.protocol === "https:"
    return {
      href: url.href,
      hostname: url.hostname,
      port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
      https,
      path: `${url.pathname}${url.search}`,
    }
  } catch {
    return undefined
  }
}
