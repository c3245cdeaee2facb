import * as fs from "node:fs"
import * as nodePath from "node:path"

/** Words that `sh` passes on unchanged: no quoting, expansion, globbing, redirection or separator. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/

/**
 * The argv of a `run` that is `exec` followed by plain words, run by the default shell
 * (`sh -c`) where that shell is dash (Debian, Ubuntu): what dash would exec, so the program can be
 * exec'd without it (one `execve` and a shell's start-up fewer per daemon, on a start of many).
 * Undefined for anything else: another shell (bash as `sh` exports `SHLVL` and `_`, and may read
 * start-up files), a word the shell would change, an assignment or an option of `exec`
 * (`exec -a`, `exec VAR=1 cmd`). The caller runs the shell as before when the program is not
 * found or cannot be exec'd, so that the shell reports it as it would, and gives the program
 * the `PWD` dash would have exported (`dashPwd`).
 */
export const directExec = (
  shell: ReadonlyArray<string>,
  shellPath: string,
  command: string,
): ReadonlyArray<string> | undefined => {
  if (shell.length !== 2 || shell[1] !== "-c" || (shell[0] !== "sh" && shell[0] !== "/bin/sh"))
    return undefined
  const words = command.trim().split(/[ \t]+/)
  if (words[0] !== "exec" || words.length < 2) return undefined
  const argv = words.slice(1)
  if (!argv.every((word) => PLAIN.test(word))) return undefined
  const program = argv[0]!
  if (program.startsWith("-") || program.includes("=")) return undefined
  return isDash(shellPath) ? argv : undefined
}

const dashes = new Map<string, boolean>()

/** Whether the shell at `path` is dash (by the file its links end at), once per path. */
const isDash = (path: string): boolean => {
  let known = dashes.get(path)
  if (known === undefined) {
    try {
      known = nodePath.basename(fs.realpathSync(path)) === "dash"
    } catch {
      known = false
    }
    dashes.set(path, known)
  }
  return known
}

/**
 * The `PWD` dash exports when it starts in `cwd`: the inherited one if it is an absolute path to
 * that very directory (a path through symbolic links is kept), else the physical path.
 */
export const dashPwd = (cwd: string, inherited: string | undefined): string => {
  // a start of many daemons asks the same of the same directory: two stats and a realpath each
  const key = `${cwd}\0${inherited ?? ""}`
  const now = Date.now()
  const known = pwds.get(key)
  if (known !== undefined && now - known.at < PWD_KEEP_MILLIS) return known.pwd
  const pwd = computePwd(cwd, inherited)
  if (pwds.size > 256) pwds.clear()
  pwds.set(key, { pwd, at: now })
  return pwd
}

const PWD_KEEP_MILLIS = 2000
const pwds = new Map<string, { readonly pwd: string; readonly at: number }>()

const computePwd = (cwd: string, inherited: string | undefined): string => {
  try {
    if (inherited !== undefined && nodePath.isAbsolute(inherited)) {
      const a = fs.statSync(inherited)
      const b = fs.statSync(cwd)
      if (a.dev === b.dev && a.ino === b.ino) return inherited
    }
    return fs.realpathSync(cwd)
  } catch {
    return cwd
  }
}
