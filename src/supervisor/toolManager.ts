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

/**
 * The argv prefix that wraps the daemon's shell: `[<bin>, "exec", "--", ...shell]`, or a message
 * saying what is missing and how to fix it.
 */
export const toolManagerShell = (
  bin: string,
  shell: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  cwd: string,
): { readonly shell: ReadonlyArray<string> } | { readonly error: string } => {
  const found = findExecutable(bin, env.PATH, cwd)
  if (found === undefined)
    return {
      error: bin.includes("/")
        ? `tool_manager is on but ${bin} is not an executable file; fix settings.general.tool_manager_bin, or set tool_manager = false on the daemon`
        : `tool_manager is on but \`${bin}\` was not found on the daemon's PATH (${env.PATH ?? "unset"}); install it, set settings.general.tool_manager_bin to its full path, or set tool_manager = false on the daemon`,
    }
  return { shell: [found, "exec", "--", ...shell] }
}
