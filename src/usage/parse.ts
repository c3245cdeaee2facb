import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import { type DecodeContext, noExtraValues, reporter, stringValue } from "./context.js"
import type { CommandDecl } from "./decl.js"
import { bodyFields, decodeBody, METADATA } from "./decodeCommand.js"
import { Problems, UsageSpecError } from "./errors.js"
import { expandIncludes } from "./include.js"
import { type KdlNode, type KdlOrigin, parseKdl } from "./kdl.js"
import type { Spec } from "./model.js"
import { decodeProps, NoProps } from "./props.js"
import { resolveCommands } from "./resolve.js"

/**
 * Reads a usage spec (KDL 2) from a file, with its includes and schema files, and resolves it
 * into the model. Fails with every problem found (syntax, unknown properties, bad outputs,
 * selects and exit codes), not just the first.
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
  const meta = decodeMetadata(nodes, ctx)
  const bin = meta.bin ?? meta.name
  if (bin === undefined)
    problems.add(origin, [], "bin", 'the spec needs bin "<command>" (or name "<command>")')
  const cli = bin ?? "<bin>"
  const body = decodeBody(nodes, [cli], ctx, true)
  const root: CommandDecl = {
    file: origin.file,
    label: cli,
    name: cli,
    aliases: [],
    hide: false,
    ...bodyFields(body),
  }
  const resolved = resolveCommands(root, cli, problems)
  if (!problems.isEmpty) return Effect.fail(new UsageSpecError({ problems: problems.sorted() }))
  return Effect.succeed({
    name: meta.name,
    bin: cli,
    version: meta.version,
    about: meta.about,
    long_about: meta.long_about,
    author: meta.author,
    license: meta.license,
    root: resolved,
    sources: [...reader.sources],
    passthrough: body.specPassthrough,
  })
}

type Metadata = { -readonly [K in (typeof METADATA)[number]]?: string }

/** `bin "supervisor"`, `version "1.2.0"`, ...: one string each, once. */
const decodeMetadata = (nodes: ReadonlyArray<KdlNode>, ctx: DecodeContext): Metadata => {
  const meta: Metadata = {}
  for (const node of nodes) {
    const key = METADATA.find((k) => k === node.name)
    if (key === undefined) continue
    const report = reporter(ctx, node, [])
    decodeProps(NoProps, node.properties, report)
    noExtraValues(node, 1, report)
    if (node.children.length > 0) report(`${key} takes no children`)
    const value = stringValue(node, 0, "a string", report)
    if (meta[key] !== undefined) report(`${key} is declared more than once`)
    else if (value !== undefined) meta[key] = value
  }
  return meta
}
