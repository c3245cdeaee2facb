import { Effect } from "effect"
import { type ConfigProblem, InvalidEnvFile, MissingEnvFile } from "../domain/ConfigProblem.js"
import type { EnvFileRef } from "../domain/EnvFile.js"
import { checkEnvFile } from "./envFiles.js"
import { locateKey } from "./locate.js"
import type { ParsedFile } from "./parseFile.js"
import { expandPath } from "./paths.js"

/** Each `env_file` a file writes (top level and per daemon), with its key path and the path as written. */
const envFileKeys = (parsed: ParsedFile) => {
  const lists: Array<readonly [ReadonlyArray<string>, ReadonlyArray<EnvFileRef>]> = []
  if (parsed.sharedEnvFile !== undefined) lists.push([["env_file"], parsed.sharedEnvFile])
  for (const [name, options] of parsed.daemons)
    if (options?.env_file !== undefined) lists.push([["daemons", name, "env_file"], options.env_file])
  return lists.flatMap(([path, refs]) =>
    refs.map((ref, i) => ({
      path,
      key: refs.length === 1 ? path.join(".") : `${path.join(".")}[${i}]`,
      ref,
    })),
  )
}

/**
 * The env files of the loaded files, checked when the configuration loads: a missing one (not
 * optional) names the config file and key, a malformed line names the env file and line. Each
 * env file's syntax is reported once. They are read again at each start.
 */
export const envFileProblems = (files: ReadonlyArray<ParsedFile>, home: string) =>
  Effect.gen(function* () {
    const problems: Array<ConfigProblem> = []
    const reported = new Set<string>()
    for (const parsed of files) {
      for (const { path, key, ref } of envFileKeys(parsed)) {
        const absolute = expandPath(ref.path, parsed.location.baseDir, home)
        const failure = yield* checkEnvFile({ path: absolute, optional: ref.optional })
        if (failure === undefined) continue
        const line = locateKey(parsed.text, path)
        const at = { file: parsed.location.path, ...(line === undefined ? {} : { line }), key }
        if (failure._tag === "Missing")
          problems.push(
            new MissingEnvFile({
              ...at,
              message: `env file ${absolute} does not exist`,
              hint: `create it, or mark it optional: ${path.at(-1)} = [{ path = ${JSON.stringify(ref.path)}, optional = true }]`,
            }),
          )
        else if (failure._tag === "Unreadable")
          problems.push(
            new MissingEnvFile({
              ...at,
              message: `cannot read env file ${absolute}: ${failure.reason}`,
              hint: "check its permissions, or point the key at a file",
            }),
          )
        else if (!reported.has(absolute)) {
          reported.add(absolute)
          problems.push(
            new InvalidEnvFile({
              file: absolute,
              line: failure.error.line,
              message: failure.error.message,
              hint: `fix the line (dotenv syntax: NAME=value, see docs/configuration.md); the file is read through ${key} of ${parsed.location.path}`,
            }),
          )
        }
      }
    }
    return problems
  })
