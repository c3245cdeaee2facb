import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Data, Effect } from "effect"
import { replaceFile } from "../state/replaceFile.js"
import type { ExportFile } from "./model.js"

/** `--out DIR` would replace files that exist: nothing was written. */
export class ExportWouldOverwrite extends Data.TaggedError("ExportWouldOverwrite")<{
  readonly dir: string
  readonly existing: ReadonlyArray<string>
}> {}

/** A file of the export could not be written. */
export class ExportWriteFailed extends Data.TaggedError("ExportWriteFailed")<{
  readonly path: string
  readonly message: string
}> {}

/** Writes `content` to a temporary file next to `path`, syncs it, then renames it over `path`. */
const writeAtomically = (path: string, content: string): void =>
  replaceFile(path, `${path}.${process.pid}.tmp`, content, 0o644)

/**
 * Writes the files under `dir` (created if missing), each atomically. Without `force`, refuses
 * before writing anything when one of them exists. Returns the paths written.
 */
export const writeExport = (
  dir: string,
  files: ReadonlyArray<ExportFile>,
  force: boolean,
): Effect.Effect<ReadonlyArray<string>, ExportWouldOverwrite | ExportWriteFailed> =>
  Effect.gen(function* () {
    const paths = files.map((f) => nodePath.resolve(dir, f.path))
    const existing = paths.filter((p) => fs.existsSync(p))
    if (existing.length > 0 && !force) return yield* new ExportWouldOverwrite({ dir, existing })
    for (const [i, file] of files.entries()) {
      const path = paths[i]!
      yield* Effect.try({
        try: () => {
          fs.mkdirSync(nodePath.dirname(path), { recursive: true })
          writeAtomically(path, file.content)
        },
        catch: (e) => new ExportWriteFailed({ path, message: e instanceof Error ? e.message : String(e) }),
      })
    }
    return paths
  })
