import * as fs from "node:fs"
import * as nodePath from "node:path"

/** Where execvp looks when PATH is unset (glibc's default). */
const DEFAULT_PATH = "/bin:/usr/bin"

/**
 * How long a result is kept. A start of many daemons looks the same names up many times at once;
 * a program installed later into a directory earlier on PATH is found by starts after this, as
 * the shell, which searches every time, would find it.
 */
const KEEP_MILLIS = 2000

const found = new Map<string, { readonly path: string; readonly at: number }>()

/**
 * The absolute path `execvp(file)` would run under `pathEnv` (the child's PATH), or `file` itself
 * when it names a path, is found nowhere (the spawn then fails as it would have), or the search
 * reaches a relative PATH entry (`.`, `node_modules/.bin`, or an empty one: relative to the
 * child's working directory, which execvp knows). Spawning the absolute path spares the child its
 * walk along PATH, a failed `execve` per entry before the one that works; the parent waits for
 * that walk, ~0.2 ms a daemon with a PATH of ten directories.
 */
export const resolveExecutable = (file: string, pathEnv: string | undefined): string => {
  if (file.includes("/") || file === "") return file
  const key = `${pathEnv ?? ""}\0${file}`
  const now = Date.now()
  const known = found.get(key)
  if (known !== undefined && now - known.at < KEEP_MILLIS && isExecutable(known.path)) return known.path
  found.delete(key)
  for (const dir of (pathEnv ?? DEFAULT_PATH).split(":")) {
    if (!nodePath.isAbsolute(dir)) return file
    const candidate = nodePath.join(dir, file)
    if (isExecutableFile(candidate)) {
      if (found.size > 256) found.clear() // a bound: names and PATHs are few in practice
      found.set(key, { path: candidate, at: now })
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
