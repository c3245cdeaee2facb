import * as fs from "node:fs"
import * as nodePath from "node:path"

/** Where execvp looks when PATH is unset (glibc's default). */
const DEFAULT_PATH = "/bin:/usr/bin"

const found = new Map<string, string>()

/**
 * The absolute path `execvp(file)` would run under `pathEnv` (the child's PATH), or `file` itself
 * when it names a path or is found nowhere (the spawn then fails as it would have). Spawning the
 * absolute path spares the child its walk along PATH, a failed `execve` per entry before the one
 * that works; the parent waits for that walk, ~0.2 ms a daemon with a PATH of ten directories.
 * Results are kept (per PATH and name) while the file stays executable.
 */
export const resolveExecutable = (file: string, pathEnv: string | undefined): string => {
  if (file.includes("/") || file === "") return file
  const key = `${pathEnv ?? ""}\0${file}`
  const known = found.get(key)
  if (known !== undefined && isExecutable(known)) return known
  found.delete(key)
  for (const dir of (pathEnv ?? DEFAULT_PATH).split(":")) {
    // an empty entry means the working directory: left to execvp, which knows the child's
    if (dir === "") return file
    const candidate = nodePath.join(dir, file)
    if (isExecutableFile(candidate)) {
      found.set(key, candidate)
      return candidate
    }
  }
  return file
}

const isExecutable = (path: string): boolean => {
  try {
    fs.accessSync(path, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Whether `path` is a file this process may execute. */
export const isExecutableFile = (path: string): boolean => {
  try {
    fs.accessSync(path, fs.constants.X_OK)
    return fs.statSync(path).isFile()
  } catch {
    return false
  }
}
