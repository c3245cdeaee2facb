// Which program forks the daemons for the supervisor (spawnHelper.ts): the C one built into dist/
// where a C compiler was at hand and built for this machine, else the Perl script.
import * as fs from "node:fs"
import { isExecutableFile } from "./executable.js"
import { findPerl } from "./pty.js"
import { spawnHelperBinary } from "./spawnHelperBinary.js"
import { SPAWN_HELPER_SCRIPT } from "./spawnHelperScript.js"

/** A program that speaks the helper's protocol: its file and its arguments before the four numbers. */
export interface HelperProgram {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/** The helper programs to try, best first (see `SpawnHelper`). */
export const helperPrograms = (env: NodeJS.ProcessEnv): Array<HelperProgram> => {
  const choice = env.SUPERVISOR_SPAWN_HELPER
  if (choice === "0") return []
  const programs: Array<HelperProgram> = []
  if (
    choice !== "perl" &&
    process.platform === "linux" &&
    isExecutableFile(spawnHelperBinary) &&
    builtHere(spawnHelperBinary)
  )
    programs.push({ file: spawnHelperBinary, args: [] })
  const perl = choice === "c" ? undefined : findPerl(env.PATH)
  if (perl !== undefined) programs.push({ file: perl, args: ["-e", SPAWN_HELPER_SCRIPT] })
  return programs
}

/** ELF `e_machine` by Node's `process.arch`. */
const ELF_MACHINE: Readonly<Record<string, number>> = {
  x64: 62,
  arm64: 183,
  riscv64: 243,
  loong64: 258,
  s390x: 22,
  ppc64: 21,
  ia32: 3,
  arm: 40,
}

/**
 * Whether `file` is an ELF program for this machine's architecture: a package built elsewhere
 * carries a helper this machine may not run (the Perl one is used then).
 */
export const builtHere = (file: string, arch: string = process.arch): boolean => {
  const head = Buffer.alloc(20)
  let fd: number | undefined
  try {
    fd = fs.openSync(file, "r")
    if (fs.readSync(fd, head, 0, 20, 0) < 20) return false
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
  const little = head[5] === 1
  const machine = little ? head.readUInt16LE(18) : head.readUInt16BE(18)
  return head.readUInt32BE(0) === 0x7f454c46 && machine === ELF_MACHINE[arch]
}
