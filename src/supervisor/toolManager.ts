import * as nodePath from "node:path"
import { isExecutableFile } from "../process/executable.js"

/**
 * `tool_manager`: the daemon's command runs through a tool-version manager's exec wrapper
 * (`mise exec -- sh -c <run>`), so that the tools and variables it manages for the directory are
 * active even where no interactive shell hook ran (a supervisor started at boot).
 */

/**
 * Where `bin` is: a path (it contains a `/`; relative to `cwd`) is taken as is, a name is looked
 * up in the directories of `PATH`, as a shell would. Undefined when it is not an executable file.
 */
export const findExecutable = (bin: string, path: string | undefined, cwd: string): string | undefined => {
  if (bin.includes("/")) {
    const full = nodePath.resolve(cwd, bin)
    return isExecutableFile(full) ? full : undefined
  }
  for (const dir of (path ?? "").split(":")) {
    if (dir === "") continue
    const candidate = nodePath.join(nodePath.resolve(cwd, dir), bin)
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

/** Whether a daemon runs through the tool manager: its own `tool_manager`, else the setting. */
export const usesToolManager = (daemonSetting: boolean | undefined, generalSetting: boolean): boolean =>
  daemonSetting ?? generalSetting

/** Which key turned the tool manager on for a daemon, and the daemon's own key (to turn it off). */
export interface ToolManagerKeys {
  /** `daemons.web.tool_manager` or `settings.general.tool_manager`. */
  readonly on: string
  /** `daemons.web.tool_manager`. */
  readonly daemon: string
}

/** The keys of daemon `name`'s tool manager, `daemonSetting` being its own `tool_manager`. */
export const toolManagerKeys = (name: string, daemonSetting: boolean | undefined): ToolManagerKeys => {
  const daemon = `daemons.${name}.tool_manager`
  return { daemon, on: daemonSetting === true ? daemon : "settings.general.tool_manager" }
}

/**
 * The argv prefix that wraps the daemon's shell: `[<bin>, "exec", "--", ...shell]`, or a message
 * saying what is missing and how to fix it, naming the keys by their full names.
 */
export const toolManagerShell = (
  bin: string,
  shell: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  cwd: string,
  keys: ToolManagerKeys,
): { readonly shell: ReadonlyArray<string> } | { readonly error: string } => {
  const found = findExecutable(bin, env.PATH, cwd)
  if (found === undefined)
    return {
      error: bin.includes("/")
        ? `${keys.on} is on but ${bin} is not an executable file; fix settings.general.tool_manager_bin, or set ${keys.daemon} = false`
        : `${keys.on} is on but \`${bin}\` was not found on the daemon's PATH (${env.PATH ?? "unset"}); install it, set settings.general.tool_manager_bin to its full path, or set ${keys.daemon} = false`,
    }
  return { shell: [found, "exec", "--", ...shell] }
}
