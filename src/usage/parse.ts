import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import type { DecodeContext } from "./context.js"
import { decodeTop } from "./decodeTop.js"
import { Problems, UsageSpecError } from "./errors.js"
import { expandFlagsets } from "./flagsets.js"
import { expandIncludes } from "./include.js"
import { type KdlOrigin, parseKdl } from "./kdl.js"
import type { Spec } from "./model.js"
import { resolveCommands } from "./resolve.js"

/**
 * Reads a usage spec (KDL 2) from a file, with its includes and schema files, and resolves it
 * into the model. Fails with every problem found (syntax, unknown nodes and properties, bad
 * values, flagsets, outputs, selects and exit codes), not just the first.
 */
export const parseSpecFile = (path: string): Effect.Effect<Spec, UsageSpecError> =>
  Effect.suspend(() => {
    const file = nodePath.resolve(path)
    const reader = makeReader()
    const text = reader.readFile(file)
    if (Either.isLeft(text)) {
      const problem = {
        file: display(file),
        path: [],
        node: "",
        message: `cannot read ${file}: ${text.left}`,
      }
      return Effect.fail(new UsageSpecError({ problems: [problem] }))
    }
    return build(text.right, { file: display(file), dir: nodePath.dirname(file) }, reader, [file])
  })

/**
 * Parses a spec held in a string. It has no directory, so a relative `include file=` or
 * `schema file=` is an error (absolute ones are read); `filename` only names it in messages.
 */
export const parseSpecString = (
  text: string,
  options?: { readonly filename?: string },
): Effect.Effect<Spec, UsageSpecError> =>
  Effect.suspend(() => build(text, { file: options?.filename ?? "<string>" }, makeReader(), []))

/**
 * Files are read synchronously: specs and schemas are small, and a plain function keeps the
 * decoding stages simple (they take a `readFile` callback rather than an effectful service).
 * Each file is read once; `sources` lists them in read order.
 */
const makeReader = () => {
  const sources: Array<string> = []
  const cache = new Map<string, Either.Either<string, string>>()
  const readFile = (file: string): Either.Either<string, string> => {
    const cached = cache.get(file)
    if (cached !== undefined) return cached
    let result: Either.Either<string, string>
    try {
      result = Either.right(fs.readFileSync(file, "utf8"))
      sources.push(file)
    } catch (e) {
      result = Either.left(describeFsError(e))
    }
    cache.set(file, result)
    return result
  }
  return { sources, readFile }
}

const describeFsError = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code
  if (code === "ENOENT") return "no such file"
  if (code === "EACCES") return "permission denied"
  if (code === "EISDIR") return "it is a directory"
  return e instanceof Error ? e.message : String(e)
}

/** Messages name files relative to the working directory when they are below it. */
const display = (file: string): string => {
  const rel = nodePath.relative(process.cwd(), file)
  return rel === "" || rel.startsWith("..") || nodePath.isAbsolute(rel) ? file : rel
}

const build = (
  text: string,
  origin: KdlOrigin,
  reader: ReturnType<typeof makeReader>,
  stack: ReadonlyArray<string>,
): Effect.Effect<Spec, UsageSpecError> => {
  const problems = new Problems()
  const ctx: DecodeContext = { problems, readFile: reader.readFile, displayName: display }
  const parsed = parseKdl(text, origin, problems)
  if (parsed === undefined) return Effect.fail(new UsageSpecError({ problems: problems.sorted() }))
  const nodes = expandIncludes(parsed, ctx, stack)
  const top = decodeTop(nodes, origin.file, ctx)
  // As usage: `bin`, else `name`, else the file's name; a spec read from a string may have none.
  const bin = top.meta.bin ?? top.meta.name ?? (stack[0] === undefined ? "" : nodePath.basename(stack[0]))
  const root = expandFlagsets(top.root(bin), top.flagsets, ctx)
  const resolved = resolveCommands(root, bin, problems)
  if (!problems.isEmpty) return Effect.fail(new UsageSpecError({ problems: problems.sorted() }))
  const m = top.meta
  return Effect.succeed({
    name: m.name,
    bin,
    version: m.version,
    long_version: m.long_version,
    about: m.about,
    long_about: m.long_about,
    author: m.author,
    license: m.license,
    usage: m.usage,
    repository: m.repository,
    source_code_link_template: m.source_code_link_template,
    min_usage_version: m.min_usage_version,
    config: top.config,
    root: resolved,
    sources: [...reader.sources],
    passthrough: top.passthrough,
    kept: top.kept,
  })
}
