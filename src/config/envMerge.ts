import { Either } from "effect"
import { type ConfigProblem, InvalidTemplate } from "../domain/ConfigProblem.js"
import { parseDaemonRef } from "../domain/DaemonId.js"
import type { EnvFileRef } from "../domain/EnvFile.js"
import { templateRefs } from "../domain/Template.js"
import { locateKey } from "./locate.js"
import type { ParsedFile } from "./parseFile.js"
import { expandPath } from "./paths.js"

/** A parsed file with its namespace (merge.ts's NamespacedFile). */
interface NamespacedFile {
  readonly parsed: ParsedFile
  readonly namespace: string
}

/** `env_file` paths resolved from the directory of the file that wrote them. */
export const resolveEnvFiles = (refs: ReadonlyArray<EnvFileRef>, baseDir: string, home: string) =>
  refs.map((r) => ({ path: expandPath(r.path, baseDir, home), optional: r.optional }))

/** The files whose top-level `[env]` and `env_file` reach each other's daemons: a project directory's, or one file. */
const unitOf = (f: ParsedFile) =>
  f.location.level === "project" ? `project:${f.location.baseDir}` : `file:${f.location.path}`

/**
 * The top-level `[env]` and `env_file` a daemon gets: those of every file of its project
 * directory (or of its user or system file), in load order, later keys winning.
 */
export const sharedEnvOf = (
  files: ReadonlyArray<NamespacedFile>,
  sources: ReadonlyArray<string>,
  home: string,
) => {
  const units = new Set(
    files.filter((f) => sources.includes(f.parsed.location.path)).map((f) => unitOf(f.parsed)),
  )
  const shared_env: Record<string, string> = {}
  const shared_env_file: Array<EnvFileRef> = []
  for (const { parsed } of files) {
    if (!units.has(unitOf(parsed))) continue
    Object.assign(shared_env, parsed.sharedEnv)
    shared_env_file.push(...resolveEnvFiles(parsed.sharedEnvFile ?? [], parsed.location.baseDir, home))
  }
  return { shared_env, shared_env_file }
}

/** Templates of a top-level `[env]` that name no configured daemon (rendered in the file's namespace). */
export const sharedTemplateProblems = (
  files: ReadonlyArray<NamespacedFile>,
  isKnown: (qualified: string) => boolean,
  known: ReadonlyArray<string>,
): Array<ConfigProblem> =>
  files.flatMap(({ parsed, namespace }) =>
    Object.entries(parsed.sharedEnv ?? {}).flatMap(([name, value]) =>
      templateRefs(value, "shell").refs.flatMap((ref) => {
        if (ref.name._tag !== "OtherDaemon") return []
        const named = ref.name.daemon
        const target = parseDaemonRef(named, namespace)
        if (isKnown(Either.isRight(target) ? target.right.qualified : named)) return []
        const line = locateKey(parsed.text, ["env", name])
        return [
          new InvalidTemplate({
            file: parsed.location.path,
            ...(line === undefined ? {} : { line }),
            key: `env.${name}`,
            message: `template ${ref.text} names ${JSON.stringify(named)}, which is not a configured daemon`,
            hint: `known daemons: ${known.join(", ") || "(none)"}`,
          }),
        ]
      }),
    ),
  )
