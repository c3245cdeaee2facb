// `pty = true`: the daemon runs under a pseudo-terminal whose master side a small holder process
// keeps, copying the output to the daemon's log file (ptyScript.ts has the how). The daemon is
// still the tracked process, in its own session and process group; the holder is not in it.
import * as fs from "node:fs"

/** TIOCSPTLCK, TIOCGPTN, TIOCSCTTY, TIOCSWINSZ by architecture (Linux). */
const IOCTLS: Readonly<Record<string, ReadonlyArray<number>>> = {
  x64: [0x40045431, 0x80045430, 0x540e, 0x5414],
  ia32: [0x40045431, 0x80045430, 0x540e, 0x5414],
  arm64: [0x40045431, 0x80045430, 0x540e, 0x5414],
  arm: [0x40045431, 0x80045430, 0x540e, 0x5414],
  riscv64: [0x40045431, 0x80045430, 0x540e, 0x5414],
  loong64: [0x40045431, 0x80045430, 0x540e, 0x5414],
  s390x: [0x40045431, 0x80045430, 0x540e, 0x5414],
  ppc64: [0x80045431, 0x40045430, 0x540e, 0x80087467],
}

/** The perl binary on `PATH` (unset: /usr/bin:/bin), or undefined. */
export const findPerl = (pathEnv: string | undefined): string | undefined => {
  for (const dir of (pathEnv ?? "/usr/bin:/bin").split(":")) {
    if (dir === "") continue
    try {
      fs.accessSync(`${dir}/perl`, fs.constants.X_OK)
      return `${dir}/perl`
    } catch {}
  }
  return undefined
}

/** The terminal's size: COLUMNS and LINES of the daemon's environment, else 80x24. */
const size = (env: Readonly<Record<string, string>>, key: string, fallback: number) => {
  const n = Number(env[key])
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : fallback
}

/**
 * The argv that runs `file` with `argv` under a pseudo-terminal (through Perl), or why it cannot
 * be: no Perl, or an architecture whose ioctl numbers are not known here.
 */
export const ptyArgv = (
  script: string,
  id: string,
  input: string,
  file: string,
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
): { readonly file: string; readonly argv: ReadonlyArray<string> } | { readonly problem: string } => {
  const ioctls = IOCTLS[process.arch]
  if (ioctls === undefined) return { problem: `pty = true is not supported on ${process.arch}` }
  const perl = findPerl(env.PATH) ?? findPerl(undefined)
  if (perl === undefined)
    return {
      problem: "pty = true needs perl (Debian and Ubuntu: the perl-base package), which was not found",
    }
  const rows = size(env, "LINES", 24)
  const cols = size(env, "COLUMNS", 80)
  return {
    file: perl,
    argv: [
      "perl",
      "-e",
      script,
      "--",
      ...ioctls.map(String),
      String(rows),
      String(cols),
      id,
      input,
      file,
      ...argv,
    ],
  }
}

/** A pseudo-terminal's environment: TERM set (xterm-256color) when it is unset or `dumb`. */
export const ptyEnv = (env: Readonly<Record<string, string>>): Readonly<Record<string, string>> =>
  env.TERM === undefined || env.TERM === "" || env.TERM === "dumb" ? { ...env, TERM: "xterm-256color" } : env
