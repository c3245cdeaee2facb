import { type ConfigProblem, InvalidValue } from "../domain/ConfigProblem.js"
import { nameProblem } from "../domain/Name.js"
import { locateKey } from "./locate.js"
import type { ParsedFile } from "./parseFile.js"
import { expandPath } from "./paths.js"

const where = (parsed: ParsedFile, path: ReadonlyArray<string>) => {
  const line = locateKey(parsed.text, path)
  return line === undefined ? { file: parsed.location.path } : { file: parsed.location.path, line }
}

/**
 * The `[namespaces]` table (`name = { dir = "..." }`): projects the supervisor knows from the
 * start. Read only from the user-level global config, like `[slugs]`; directories expand `~` and
 * resolve relative paths from the config's directory.
 */
export const knownNamespaces = (
  files: ReadonlyArray<{ readonly parsed: ParsedFile }>,
  home: string,
): { readonly namespaces: Record<string, string>; readonly problems: Array<ConfigProblem> } => {
  const namespaces: Record<string, string> = {}
  const problems: Array<ConfigProblem> = []
  for (const { parsed } of files) {
    if (!parsed.namespaces) continue
    if (parsed.location.level !== "user") {
      problems.push(
        new InvalidValue({
          ...where(parsed, ["namespaces"]),
          key: "namespaces",
          message: "[namespaces] is only read from the user-level global config",
          hint: "move it to ~/.config/supervisor/config.toml",
        }),
      )
      continue
    }
    for (const [name, value] of Object.entries(parsed.namespaces)) {
      const problem = nameProblem(name)
      if (problem) {
        problems.push(
          new InvalidValue({
            ...where(parsed, ["namespaces", name]),
            key: `namespaces.${name}`,
            message: `invalid namespace ${JSON.stringify(name)}: ${problem}`,
            hint: "rename it: ASCII letters, digits, _, - and . only",
          }),
        )
        continue
      }
      const dir = (value as { dir?: unknown }).dir
      if (typeof dir !== "string") continue // reported by the file schema
      if (dir.trim() === "") {
        problems.push(
          new InvalidValue({
            ...where(parsed, ["namespaces", name, "dir"]),
            key: `namespaces.${name}.dir`,
            message: "the project directory is empty",
            hint: `write the project's directory, e.g. ${name} = { dir = "~/src/${name}" }`,
          }),
        )
        continue
      }
      namespaces[name] = expandPath(dir, parsed.location.baseDir, home)
    }
  }
  return { namespaces, problems }
}
