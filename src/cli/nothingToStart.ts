// `start --all` (or `--local`, `--global`) that selects nothing: which files were looked for,
// where, and how to declare a first daemon, instead of a bare "nothing to start".
import * as os from "node:os"
import * as nodePath from "node:path"
import { PROJECT_FILES, systemConfigDir, userConfigDir } from "../config/discover.js"
import type { Scope } from "../control/selection.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

/** A first daemon, as a supervisor.toml would declare it. */
const EXAMPLE = '[daemons.web]\nrun = "node server.js"'

/** The lines printed when a start selects no daemon. */
export const nothingToStart = (
  config: ResolvedConfig,
  scope: Scope | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ReadonlyArray<string> => {
  const files = config.files.filter(
    (f) => scope === undefined || (f.level === "project") === (scope === "local"),
  )
  if (files.length > 0)
    return [
      `no daemons to start: none is configured in ${files.map((f) => f.path).join(", ")}`,
      `declare one there, e.g.:\n${indent(EXAMPLE)}`,
    ]
  const home = env.HOME || os.homedir()
  const project = `${PROJECT_FILES.filter((f) => !f.local)
    .map((f) => f.rel)
    .join(" or ")} (and their .local.toml) in ${config.cwd} and each directory above it`
  const searched = [
    ...(scope === "global" ? [] : [project]),
    ...(scope === "local"
      ? []
      : [
          `${nodePath.join(userConfigDir(env, home), "config.toml")} (user)`,
          `${nodePath.join(systemConfigDir(env), "config.toml")} (system)`,
        ]),
  ]
  return [
    `no daemons to start: no ${scope === undefined ? "" : `${scope === "local" ? "project " : "global "}`}configuration file found; searched:`,
    ...searched.map((s) => `  ${s}`),
    `create ${nodePath.join(config.cwd, "supervisor.toml")} with a daemon, e.g.:\n${indent(EXAMPLE)}`,
    "then `supervisor start --all`; or run a command without a file: `supervisor run ID -- CMD...`",
  ]
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n")
