import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import type { EnvFileRef } from "../domain/EnvFile.js"
import { type DotenvError, parseDotenv } from "./dotenv.js"

/** Why an env file gives no values: missing (not optional), unreadable, or a malformed line. */
export type EnvFileFailure =
  | { readonly _tag: "Missing"; readonly path: string }
  | { readonly _tag: "Unreadable"; readonly path: string; readonly reason: string }
  | { readonly _tag: "Malformed"; readonly path: string; readonly error: DotenvError }

/** A failure in one line: `/p/.env:3: expected "=" ...`. */
export const envFileFailureText = (f: EnvFileFailure): string =>
  f._tag === "Missing"
    ? `env file ${f.path} does not exist`
    : f._tag === "Unreadable"
      ? `cannot read env file ${f.path}: ${f.reason}`
      : `${f.path}:${f.error.line}: ${f.error.message}`

/** The text of an env file; undefined when there is no such file. */
const readText = (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.readFileString(path).pipe(
      Effect.map((text): string | undefined => text),
      Effect.catchAll((e) =>
        e._tag === "SystemError" && e.reason === "NotFound"
          ? Effect.succeed(undefined)
          : Effect.fail<EnvFileFailure>({ _tag: "Unreadable", path, reason: e.message }),
      ),
    ),
  )

/**
 * The values of `refs`, read now and layered in order (a later file wins): each file's `${VAR}`
 * sees its own earlier keys, the files before it, then `below`. A missing optional file is skipped.
 */
export const readEnvFiles = (
  refs: ReadonlyArray<EnvFileRef>,
  below: (name: string) => string | undefined,
): Effect.Effect<Record<string, string>, EnvFileFailure, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const values: Record<string, string> = {}
    const lookup = (name: string) => (Object.hasOwn(values, name) ? values[name] : below(name))
    for (const ref of refs) {
      const text = yield* readText(ref.path)
      if (text === undefined) {
        if (ref.optional) continue
        return yield* Effect.fail<EnvFileFailure>({ _tag: "Missing", path: ref.path })
      }
      const parsed = parseDotenv(text, lookup)
      if (!parsed.ok)
        return yield* Effect.fail<EnvFileFailure>({ _tag: "Malformed", path: ref.path, error: parsed.error })
      Object.assign(values, parsed.values)
    }
    return values
  })

/** One env file checked on its own (exists unless optional, readable, dotenv syntax): its failure, if any. */
export const checkEnvFile = (ref: EnvFileRef) =>
  readEnvFiles([ref], () => undefined).pipe(
    Effect.as(undefined),
    Effect.catchAll((f) => Effect.succeed(f)),
  )
