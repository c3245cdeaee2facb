import * as nodePath from "node:path"
import { Either } from "effect"
import { readAttrs } from "./attrs.js"
import {
  type DecodeContext,
  labelOf,
  noExtraValues,
  noPropsOrChildren,
  reporter,
  showKdlValue,
  stringValue,
} from "./context.js"
import type { ExitCodeDecl, OutputDecl, SelectDecl } from "./decl.js"
import type { KdlNode } from "./kdl.js"
import type { Framing } from "./model.js"
import { OUTPUT } from "./vocabulary.js"

/**
 * The three nodes of the output declarations spec: `output NAME ...`, `select "--flag"` and
 * `exit_code N "description"` (lib/src/spec/{output,exit_code}.rs, docs/spec/reference/output.md).
 * Each is decoded on its own here; the rules between nodes (one default, one select, the flag a
 * select names) need the whole command and live in `resolve.ts`.
 */

/** Where the declaration is, for messages. */
const at = (node: KdlNode) => ({ file: node.file, line: node.line, label: labelOf(node) })

export const decodeOutput = (
  node: KdlNode,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
): OutputDecl | undefined => {
  const report = reporter(ctx, node, path)
  const name = node.values[0]
  if (typeof name !== "string" || name === "") {
    report(
      name === undefined || name === ""
        ? 'output needs a name (its first argument, e.g. output "json")'
        : `output name must be a string, got ${showKdlValue(name)}`,
    )
  }
  noExtraValues(node, 1, report)
  if (node.properties.help !== undefined && node.children.some((c) => c.name === "help"))
    report("help is given twice (property and child); keep one")
  const props = readAttrs(node, OUTPUT, report, { what: "an output", structural: ["schema"] })
  const inline = props.string("schema")
  let schema: { readonly text: string; readonly file?: string } | undefined =
    inline === undefined ? undefined : { text: inline }
  for (const child of props.rest) {
    if (schema !== undefined) report("more than one schema; keep one")
    schema = decodeSchema(child, report, ctx) ?? schema
  }
  if (typeof name !== "string" || name === "") return undefined
  return {
    ...at(node),
    name,
    media_type: props.string("media_type"),
    framing: (props.string("framing") as Framing | undefined) ?? "text",
    help: props.string("help"),
    default: props.bool("default") === true,
    hide: props.bool("hide") === true,
    select: props.string("select"),
    schema: schema?.text,
    schema_file: schema?.file,
  }
}

/**
 * `schema "<text>"` (verbatim) or `schema file="<path>"` (relative to the KDL file holding the
 * node, which is also right inside an included file). The file's content becomes the text.
 */
const decodeSchema = (
  node: KdlNode,
  report: (message: string) => void,
  ctx: DecodeContext,
): { readonly text: string; readonly file?: string } | undefined => {
  let file: string | undefined
  for (const [k, v] of Object.entries(node.properties)) {
    if (k !== "file") report(`schema: unknown property ${k}=${showKdlValue(v)} (known: file)`)
    else if (typeof v !== "string") report(`schema: file must be a string, got ${showKdlValue(v)}`)
    else file = v
  }
  noExtraValues(node, 1, (m) => report(`schema: ${m}`))
  if (node.children.length > 0) report("schema takes no children")
  const inline = node.values[0]
  if (inline !== undefined && typeof inline !== "string") {
    report(`schema text must be a string, got ${showKdlValue(inline)}`)
    return undefined
  }
  if (inline !== undefined && file !== undefined) {
    report(`schema has both inline text and file="${file}"; give one of them`)
    return undefined
  }
  if (inline !== undefined) return { text: inline }
  if (file === undefined) {
    report('schema needs its text (schema "{...}") or a file (schema file="out.schema.json")')
    return undefined
  }
  if (!nodePath.isAbsolute(file)) {
    if (node.dir === undefined) {
      report(
        `schema file "${file}" is relative, but the spec was parsed from a string (no directory to resolve it against); use an absolute path or an inline schema`,
      )
      return undefined
    }
    file = nodePath.resolve(node.dir, file)
  }
  const read = ctx.readFile(file)
  if (Either.isLeft(read)) {
    report(`cannot read schema file ${file}: ${read.left}`)
    return undefined
  }
  return { text: read.right, file }
}

export const decodeSelect = (
  node: KdlNode,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
): SelectDecl | undefined => {
  const report = reporter(ctx, node, path)
  noPropsOrChildren(node, report)
  noExtraValues(node, 1, report)
  const flag = stringValue(node, 0, 'the flag that selects the output (select "--format")', report)
  return flag === undefined ? undefined : { ...at(node), flag }
}

export const decodeExitCode = (
  node: KdlNode,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
): ExitCodeDecl | undefined => {
  const report = reporter(ctx, node, path)
  noPropsOrChildren(node, report)
  noExtraValues(node, 2, report)
  const code = node.values[0]
  let ok = true
  if (typeof code !== "number" || !Number.isInteger(code)) {
    report(
      code === undefined
        ? 'exit_code needs a status number and a description (exit_code 2 "usage error")'
        : `exit code must be an integer, got ${showKdlValue(code)}`,
    )
    ok = false
  } else if (code < 0 || code > 255) {
    report(
      `exit code ${code} is outside 0-255: a shell sees only the low byte of an exit status (${code} would read as ${((code % 256) + 256) % 256})`,
    )
    ok = false
  }
  const description = node.values[1]
  if (typeof description !== "string" || description === "") {
    report(
      typeof description === "string" || description === undefined
        ? `exit code ${showKdlValue(code ?? null)} needs a non-empty description`
        : `exit code description must be a string, got ${showKdlValue(description)}`,
    )
    ok = false
  }
  return ok && typeof code === "number" && typeof description === "string"
    ? { ...at(node), code, description }
    : undefined
}
