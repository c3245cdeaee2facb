// The supervisor's asynchronous file operations, through Node's callback API on libuv's thread
// pool. `fs.promises` would load Node's promise-based file system (and readline with it): ~0.6
// MiB of resident memory for the process's life, for these few calls (docs/benchmarks.md).
import * as fs from "node:fs"
import { promisify } from "node:util"

export const open = promisify(fs.open)
export const close = promisify(fs.close)
export const fsync = promisify(fs.fsync)
export const fdatasync = promisify(fs.fdatasync)
export const mkdir = promisify(fs.mkdir)
export const rename = promisify(fs.rename)
export const rm = promisify(fs.rm)
export const stat = promisify(fs.stat)
export const realpath = promisify(fs.realpath)
export const readdirEntries = (dir: string): Promise<Array<fs.Dirent>> =>
  new Promise((ok, fail) =>
    fs.readdir(dir, { withFileTypes: true }, (e, entries) => (e === null ? ok(entries) : fail(e))),
  )

/** Writes all of `text` at the descriptor's position (at its end, for one opened to append). */
export const writeAll = (fd: number, text: string): Promise<void> =>
  new Promise((ok, fail) => fs.writeFile(fd, text, (e) => (e === null ? ok() : fail(e))))

/** Runs `use` with `path` opened, and closes it after, whatever `use` did. */
export const withFd = async <A>(
  path: string,
  flags: fs.OpenMode,
  mode: fs.Mode | undefined,
  use: (fd: number) => Promise<A>,
): Promise<A> => {
  const fd = await open(path, flags, mode)
  try {
    return await use(fd)
  } finally {
    await close(fd)
  }
}
