import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import {
  allCommands,
  completionScript,
  describeCommand,
  listCommands,
  manPage,
  markdownDocs,
} from "../../usage/consume/index.js"
import { CommandDescription, CommandList } from "../../usage/consume/mcpResults.js"
import type { Spec } from "../../usage/model.js"
import { generateSdk } from "../../usage/sdk/index.js"
import { writeSpec } from "../../usage/writer.js"
import { ExitCode, exitWith, printJson } from "../output.js"
import { fail, isStdin, loadSpec, reportWritten, type SpecCliFailure, writeFile, writeFiles } from "./io.js"
import { markdownBundle, resolveSummary } from "./render.js"
import { ResolveOutput, resolveOutput } from "./resolveOutput.js"

/**
 * What each `supervisor spec` subcommand does (src/cli/spec.ts declares their flags). Kept out
 * of the command declarations so the CLI loads the KDL parser and the generators only when a
 * `spec` command runs: every other command starts as fast as before.
 */

/** Prints a failure's lines to stderr and sets its exit status. */
const reportFailure = (e: SpecCliFailure) =>
  Effect.forEach(e.lines, (l) => Console.error(l), { discard: true }).pipe(
    Effect.zipRight(exitWith(e.code === 2 ? ExitCode.usage : ExitCode.failure)),
  )

/** Loads FILE, runs `f` on the spec, and reports any failure on stderr with its exit status. */
const withSpec =
  <A>(f: (spec: Spec, options: A) => Effect.Effect<void, SpecCliFailure>) =>
  (options: A & { readonly file: string }): Effect.Effect<void> =>
    loadSpec(options.file).pipe(
      Effect.flatMap((spec) => f(spec, options)),
      Effect.catchTag("SpecCliFailure", reportFailure),
    )

/** Console.log adds the newline the generators already end with. */
const print = (text: string) => Console.log(text.replace(/\n$/, ""))

export const check = withSpec((spec, { file }: { readonly file: string }) =>
  Console.log(`ok: ${file} (${allCommands(spec).length} commands)`),
)

export const resolve = withSpec((spec, o: { readonly json: boolean }) =>
  o.json ? printJson(ResolveOutput, resolveOutput(spec)) : Console.log(resolveSummary(spec)),
)

export const docs = withSpec(
  (spec, o: { readonly format: "markdown" | "man"; readonly out: Option.Option<string> }) => {
    const files = o.format === "man" ? new Map([[`${spec.bin}.1`, manPage(spec)]]) : markdownDocs(spec)
    if (Option.isSome(o.out)) return writeFiles(o.out.value, files).pipe(Effect.flatMap(reportWritten))
    return print(o.format === "man" ? manPage(spec) : markdownBundle(files))
  },
)

export const describe = withSpec(
  (spec, o: { readonly command: ReadonlyArray<string>; readonly list: boolean }) => {
    if (o.list) return printJson(CommandList, listCommands(spec))
    const result = describeCommand(spec, o.command)
    if (result.ok) return printJson(CommandDescription, result.command)
    return fail(1, result.error, ["known commands:", ...result.known.map((k) => `  ${k}`)])
  },
)

export const sdk = withSpec((spec, o: { readonly lang: "typescript" | "python"; readonly out: string }) =>
  writeFiles(o.out, generateSdk(spec, o.lang)).pipe(Effect.flatMap(reportWritten)),
)

export const fmt = withSpec((spec, o: { readonly file: string; readonly write: boolean }) => {
  const text = writeSpec(spec)
  if (!o.write) return print(text)
  if (isStdin(o.file)) return fail(2, "--write needs a file, not stdin")
  // The writer inlines includes and schema files: rewriting would merge them into this file.
  const others = spec.sources.filter((s) => s !== nodePath.resolve(o.file))
  if (others.length > 0)
    return fail(
      1,
      `--write would inline ${others.length} included or schema file${others.length === 1 ? "" : "s"} (${others.join(", ")}) into ${o.file}; print it instead`,
    )
  return writeFile(o.file, text)
})

export const complete = withSpec((spec, o: { readonly shell: "bash" | "zsh" | "fish" }) =>
  spec.bin === ""
    ? fail(1, 'the spec names no program, and a completion script registers for one: add bin "<name>"')
    : print(completionScript(spec, o.shell)),
)
