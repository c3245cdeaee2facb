import { Schema } from "effect"
import { DaemonRef } from "./DaemonId.js"
import { DaemonOptions, daemonOptionFields } from "./DaemonOptions.js"
import { EnvFileOption } from "./EnvFile.js"
import { flatSettingFields } from "./flatSettings.js"
import { DaemonName, Namespace } from "./Name.js"
import {
  ApiSettings,
  GeneralSettings,
  LogsSettings,
  MetricsSettings,
  ProxySettings,
  SupervisorSettings,
  TuiSettings,
  WebSettings,
} from "./Settings.js"

export const Group = Schema.Struct({
  daemons: Schema.Array(DaemonRef).annotations({ description: "Short names or qualified IDs" }),
}).annotations({ identifier: "Group", description: "A named set of daemons for start/stop/restart --group" })

export const Slug = Schema.Struct({
  dir: Schema.String.annotations({ description: "Project directory containing the config file (~ expands)" }),
  daemon: Schema.optional(
    DaemonName.annotations({ description: "Daemon name in that project (default: the slug)" }),
  ),
}).annotations({ identifier: "Slug", description: "A reverse-proxy slug: a name for a project's daemon" })

export const KnownNamespace = Schema.Struct({
  dir: Schema.String.annotations({ description: "Project directory containing the config file (~ expands)" }),
}).annotations({
  identifier: "KnownNamespace",
  description: "A project the supervisor knows from the start: its daemons are listed and reloaded",
})

/** One configuration file as written. */
export const ConfigFile = Schema.Struct({
  namespace: Schema.optional(
    Namespace.annotations({
      description: "The namespace of this file's daemons (default: the project directory's name)",
    }),
  ),
  worktree: Schema.optional(
    Schema.Union(Schema.NonEmptyTrimmedString, Schema.Literal(false)).annotations({
      description:
        "This checkout's worktree name (docs/worktrees.md): a name makes a plain copy a worktree (its own namespace, ports and host names) or renames a detected one; false keeps a git worktree or jj workspace as the main checkout. Project files only; usually set in supervisor.local.toml",
    }),
  ),
  env: Schema.optional(
    daemonOptionFields.env.from.annotations({
      description:
        "Environment variables of every daemon of this file (below each daemon's env_file and env); values may contain templates (docs/templates.md)",
    }),
  ),
  env_file: Schema.optional(
    EnvFileOption.annotations({
      description:
        "Dotenv files of every daemon of this file, read at each start (below [env]): a path, or a list of paths and { path, optional = true } tables",
    }),
  ),
  daemons: Schema.optional(
    Schema.Record({ key: Schema.String, value: DaemonOptions }).annotations({
      description: "Daemons by name",
    }),
  ),
  groups: Schema.optional(
    Schema.Record({ key: Schema.String, value: Group }).annotations({
      description: "Named sets of daemons for start/stop/restart --group",
    }),
  ),
  slugs: Schema.optional(
    Schema.Record({ key: Schema.String, value: Slug }).annotations({
      description: "Reverse-proxy slugs (user-level global config only)",
    }),
  ),
  namespaces: Schema.optional(
    Schema.Record({ key: Schema.String, value: KnownNamespace }).annotations({
      description: "Projects the supervisor knows by namespace (user-level global config only)",
    }),
  ),
  settings: Schema.optional(
    Schema.Struct({
      general: Schema.optional(GeneralSettings),
      supervisor: Schema.optional(SupervisorSettings),
      web: Schema.optional(WebSettings),
      api: Schema.optional(ApiSettings),
      logs: Schema.optional(LogsSettings),
      proxy: Schema.optional(ProxySettings),
      metrics: Schema.optional(MetricsSettings),
      tui: Schema.optional(TuiSettings),
      ...flatSettingFields,
    }).annotations({
      description:
        "Settings tables: [settings.general], [settings.supervisor], [settings.web], [settings.api], [settings.logs], [settings.proxy], [settings.metrics], [settings.tui]",
    }),
  ),
  general: Schema.optional(GeneralSettings.annotations({ description: "Same as [settings.general]" })),
}).annotations({
  identifier: "SupervisorConfig",
  title: "supervisor.toml",
  description: "Configuration of the supervisor daemon manager (supervisor.toml, config.toml)",
})
export type ConfigFile = typeof ConfigFile.Type
