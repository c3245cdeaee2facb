// `supervisor import procfile|pm2|compose FILE`: reads the file and maps it (one module per source).
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { importCompose } from "./compose.js"
import { type Imported, ImportFailed } from "./model.js"
import { importPm2 } from "./pm2.js"
import { loadEcosystem } from "./pm2Load.js"
import { importProcfile } from "./procfile.js"

export const SOURCES = ["procfile", "pm2", "compose"] as const
export type Source = (typeof SOURCES)[number]

const readText = (file: string) =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (e) =>
      new ImportFailed({
        file,
        problem: `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        hint: "check the path and its permissions",
      }),
  })

const orFail = (r: Imported | ImportFailed) =>
  r instanceof ImportFailed ? Effect.fail(r) : Effect.succeed(r)

/**
 * A path of the source (relative to its directory) as the config file in `outDir` reaches it:
 * relative paths resolve from the config file's project directory.
 */
const rebaser = (file: string, outDir: string) => {
  const base = nodePath.basename(outDir) === ".config" ? nodePath.dirname(outDir) : outDir
  return (path: string) =>
    path.startsWith("~") || nodePath.isAbsolute(path)
      ? path
      : nodePath.relative(base, nodePath.resolve(nodePath.dirname(file), path)) || path
}

/**
 * The daemons and warnings of `file` (an absolute path) read as `source`, for a config file
 * written in `outDir` (paths of the source are made relative to it).
 */
export const importFile = (
  source: Source,
  file: string,
  outDir: string = nodePath.dirname(file),
): Effect.Effect<Imported, ImportFailed> => {
  const rebase = rebaser(file, outDir)
  switch (source) {
    case "procfile":
      return Effect.flatMap(readText(file), (text) => {
        // foreman and Heroku load the .env beside the Procfile for every process
        const dotenv = nodePath.join(nodePath.dirname(file), ".env")
        return orFail(importProcfile(text, file, fs.existsSync(dotenv) ? rebase(".env") : undefined))
      })
    case "pm2":
      return Effect.flatMap(Effect.zipRight(readText(file), loadEcosystem(file)), (loaded) =>
        orFail(importPm2(loaded, file)),
      )
    case "compose":
      return Effect.gen(function* () {
        const text = yield* readText(file)
        const { parseYaml } = yield* Effect.promise(() => import("./yaml.js"))
        const doc = parseYaml(text)
        if ("error" in doc)
          return yield* new ImportFailed({
            file,
            problem: `not valid YAML: ${doc.error}`,
            hint: "fix the YAML syntax",
          })
        return yield* orFail(importCompose(doc.value, file, rebase))
      })
  }
}

/** How the source is named in the written file's first comment. */
export const sourceLabel = (file: string, cwd: string) => nodePath.relative(cwd, file) || file
