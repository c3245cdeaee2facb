import { Args, Command, Options } from "@effect/cli"
import type { Option } from "effect"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

const load = () => import("./actions/settings.js")

/**
 * The settings Schema's groups (src/domain/Settings.ts `settingGroups`, checked equal by
 * test/cli/settingsCommand.test.ts), named here so that the CLI's start does not build the Schema.
 */
export const SETTING_GROUPS = [
  "general",
  "supervisor",
  "web",
  "api",
  "logs",
  "proxy",
  "metrics",
  "tui",
] as const

const key = Args.text({ name: "key" }).pipe(
  Args.withDescription("a setting's key: group.key (web.bind_port) or settings.group.key"),
)

const list = Command.make(
  "list",
  {
    group: Options.choice("group", SETTING_GROUPS).pipe(
      Options.withDescription("only the settings of this group"),
      Options.optional,
    ),
    json,
  },
  ({ group, json }) => lazy(load, (m) => m.list(group as Option.Option<string>, json)),
).pipe(
  Command.withDescription(
    "list every setting: key, type, value in force, default, source, environment variable, description",
  ),
)

const get = Command.make("get", { key, json }, ({ key, json }) => lazy(load, (m) => m.get(key, json))).pipe(
  Command.withDescription(
    "print a setting's value in force (environment, then local, project, user, system file, then default)",
  ),
)

const scopeFlag = (name: string, description: string) =>
  Options.boolean(name).pipe(Options.withDescription(description))

const set = Command.make(
  "set",
  {
    key,
    value: Args.text({ name: "value" }).pipe(
      Args.withDescription("the value: a duration (5s), a number, true/false or a string"),
    ),
    project: scopeFlag("project", "write the project's supervisor.toml (the default)"),
    local: scopeFlag("local", "write the project's supervisor.local.toml (not committed)"),
    global: scopeFlag("global", "write the user's config.toml (~/.config/supervisor/config.toml)"),
  },
  ({ key, value, project, local, global }) =>
    lazy(
      () => import("./actions/settingsSet.js"),
      (m) => m.set(key, value, { project, local, global }),
    ),
).pipe(
  Command.withDescription(
    "write a setting to a configuration file, keeping its comments and formatting; checked before it is written",
  ),
)

export const settingsCommand = Command.make("settings", {}, () => lazy(load, (m) => m.show)).pipe(
  Command.withDescription("print every setting as TOML: defaults commented, the values in force set"),
  Command.withSubcommands([list, get, set]),
)
