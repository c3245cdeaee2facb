import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Console, Data, Effect } from "effect"
import {
  formatUsageProblems,
  parseSpecFile,
  parseSpecString,
  type UsageSpecError,
} from "../../usage/index.js"
import type { Spec } from "../../usage/model.js"

/**
 * The file side of `supervisor spec`: reading a spec (a path, or `-` for stdin) and writing
 * generated files. Failures carry the exit status and the lines for stderr, so every
 * subcommand reports them the same way (`reportFailure` in actions.ts).
 */

/** A `spec` subcommand failed: `lines` go to stderr, then the process exits with `code`. */
export class SpecCliFailure extends Data.TaggedError("SpecCliFailure")<{
  readonly code: 1 | 2
  readonly lines: ReadonlyArray<string>
}> {}

const failure = (code: 1 | 2, message: string) => new SpecCliFailure({ code, lines: [`error: ${message}`] })

/**
 * Fails with `error: <message>` (then `details`, one per line) on stderr and exit status `code`
 * (2 for a usage error).
 */
export const fail = (
  code: 1 | 2,
  message: string,
  details: ReadonlyArray<string> = [],
): Effect.Effect<never, SpecCliFailure> =>
  Effect.fail(new SpecCliFailure({ code, lines: [`error: ${message}`, ...details] }))

/** Every problem, one per line as `formatUsageProblems` words them, then how many. */
const problemsFailure = (e: UsageSpecError) =>
  new SpecCliFailure({
    code: 1,
    lines: [
      formatUsageProblems(e.problems),
      `${e.problems.length} problem${e.problems.length === 1 ? "" : "s"} found`,
    ],
  })

/** `-` means stdin: the spec is then parsed as a string (relative include/schema files are errors). */
export const isStdin = (file: string): boolean => file === "-"

export const loadSpec = (file: string): Effect.Effect<Spec, SpecCliFailure> =>
  (isStdin(file)
    ? Effect.try({
        try: () => fs.readFileSync(0, "utf8"),
        catch: (e) => failure(1, `cannot read the spec from stdin: ${String(e)}`),
      }).pipe(Effect.flatMap((text) => parseSpecString(text, { filename: "<stdin>" })))
    : parseSpecFile(file)
  ).pipe(Effect.catchTag("UsageSpecError", (e) => Effect.fail(problemsFailure(e))))

/** Writes `files` (relative paths) under `dir`, creating directories; returns the paths written. */
export const writeFiles = (
  dir: string,
  files: ReadonlyMap<string, string>,
): Effect.Effect<ReadonlyArray<string>, SpecCliFailure> =>
  Effect.try({
    try: () => {
      const written: Array<string> = []
      for (const [rel, content] of files) {
        const path = nodePath.join(dir, rel)
        fs.mkdirSync(nodePath.dirname(path), { recursive: true })
        fs.writeFileSync(path, content)
        written.push(path)
      }
      return written
    },
    catch: (e) => failure(1, `cannot write to ${dir}: ${e instanceof Error ? e.message : String(e)}`),
  })

export const writeFile = (path: string, content: string): Effect.Effect<void, SpecCliFailure> =>
  Effect.try({
    try: () => fs.writeFileSync(path, content),
    catch: (e) => failure(1, `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`),
  })

/** `wrote <path>` for each file, so a build log shows what changed hands. */
export const reportWritten = (paths: ReadonlyArray<string>) =>
  Effect.forEach(paths, (p) => Console.log(`wrote ${p}`), { discard: true })
