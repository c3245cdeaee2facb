import * as fs from "node:fs"

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` prints it in its octal `flags:` line (asm-generic/fcntl.h). */
const O_CLOEXEC = 0o2000000

/**
 * Closes the file descriptors above stderr that this process inherited from whoever started it:
 * a pipe of the shell, the CI runner or the terminal that ran the first CLI command. Node passes
 * every descriptor that is not close-on-exec to the processes it spawns, so without this each
 * daemon would hold them too, for as long as it runs, and a caller waiting for end-of-file on
 * such a pipe (`out=$(supervisor start api)` in some shells, a CI step) would wait forever.
 *
 * Node and libuv open everything close-on-exec, so a descriptor without the flag is inherited;
 * the one that carries a Node IPC channel (`NODE_CHANNEL_FD`) is kept. Linux only (`/proc`): where
 * it cannot be read, nothing is closed. Returns the descriptors it closed.
 */
export const closeInheritedFds = (env: NodeJS.ProcessEnv = process.env): ReadonlyArray<number> => {
  let names: ReadonlyArray<string>
  try {
    names = fs.readdirSync("/proc/self/fd")
  } catch {
    return []
  }
  const keep = Number(env.NODE_CHANNEL_FD)
  const closed: Array<number> = []
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2 || fd === keep) continue
    let info: string
    try {
      info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
    } catch {
      continue // the directory listing's own descriptor, closed by now
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1]
    if (flags === undefined || (Number.parseInt(flags, 8) & O_CLOEXEC) !== 0) continue
    try {
      fs.closeSync(fd)
      closed.push(fd)
    } catch {}
  }
  return closed
}
