import * as nodePath from "node:path"

/** `~` and `~/x` expand to the home directory; relative paths resolve from `baseDir`; nothing else expands. */
export const expandPath = (value: string, baseDir: string, home: string): string => {
  if (value === "~") return home
  if (value.startsWith("~/")) return nodePath.join(home, value.slice(2))
  return nodePath.resolve(baseDir, value)
}
