// Which directory a daemon belongs to, and which project a directory is in: the shell hook's
// "inside a project" is "at or below the directory of the project's configuration file".
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { candidateLocations } from "../../config/discover.js"

/** Whether `dir` is `root` or below it (both absolute). */
export const isInside = (dir: string, root: string): boolean =>
  dir === root || dir.startsWith(root.endsWith("/") ? root : `${root}/`)

/** The project directory of a configuration file: its folder, or the parent of `.config/`. */
export const projectDirOfFile = (file: string): string => {
  const parent = nodePath.dirname(file)
  return nodePath.basename(parent) === ".config" ? nodePath.dirname(parent) : parent
}

/** The directory of the nearest project configuration file at or above `dir`; undefined if none. */
export const projectDirOf = (dir: string): string | undefined => {
  const found = candidateLocations({ cwd: dir, home: "/", env: {} })
    .filter((l) => l.level === "project")
    .reverse()
    .find((l) => fs.existsSync(l.path))
  return found?.baseDir
}
