import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { defaultLoadOptions, loadConfig } from "../../config/Loader.js"
import { ExportOutput } from "../../domain/ExportOutput.js"
import { type CheckResult, checkExport } from "../../export/check.js"
// a bundle of its own (dist/export.cjs, scripts/build.mjs): only this command loads the exporters and yaml
import { type ExportTarget, exportConfig } from "../../export/index.js"
import type { ExportFile } from "../../export/model.js"
import { writeExport } from "../../export/write.js"
import { ExitCode, exitWith, green, printJson, red, warn, yellow } from "../output.js"
import { reportInvalid } from "./config.js"

/** The separator printed before each file when several go to stdout. */
export const fileSeparator = (path: string): string => `# ==> ${path} <==`

/**
 * `--check`: the files checked where `--out` wrote them, else in a temporary directory that is
 * removed afterwards.
 */
const checkFiles = (target: ExportTarget, files: ReadonlyArray<ExportFile>, out: string | undefined) =>
  out !== undefined
    ? checkExport(
        target,
        out,
        files.map((f) => f.path),
      )
    : Effect.acquireUseRelease(
        Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-export-check-"))),
        (dir) =>
          writeExport(dir, files, true).pipe(
            Effect.zipRight(
              checkExport(
                target,
                dir,
                files.map((f) => f.path),
              ),
            ),
          ),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
      )

/** The verdict on stderr (stdout holds the files or the JSON); a failed check exits 1. */
const reportCheck = (check: CheckResult, json: boolean) =>
  Effect.gen(function* () {
    if (check._tag === "NoValidator") {
      if (!json) yield* Console.error(`${yellow("note:")} not checked: ${check.install}`)
      return
    }
    if (!json) {
      if (check.ok) yield* Console.error(`${green("✓")} checked with ${check.validator}: no problem`)
      else {
        yield* Console.error(`${red("error:")} ${check.validator} refused the export:`)
        if (check.output !== "") yield* Console.error(check.output)
      }
    }
    if (!check.ok) yield* exitWith(ExitCode.failure)
  })

interface ExportFlags {
  readonly target: ExportTarget
  readonly out: Option.Option<string>
  readonly image: Option.Option<string>
  readonly force: boolean
  readonly check: boolean
  readonly json: boolean
}

/** `supervisor export <target>`: print the files, or write them under --out. */
export const exportTo = (o: ExportFlags) =>
  Option.isSome(o.image) && o.target !== "kubernetes" && o.target !== "compose"
    ? Console.error(
        `${red("error:")} --image is for compose and kubernetes: ${o.target} runs the daemons' programs as they are; drop --image`,
      ).pipe(Effect.zipRight(exitWith(ExitCode.usage)))
    : exportWith(o)

const exportWith = (o: ExportFlags) =>
  loadConfig(defaultLoadOptions()).pipe(
    Effect.flatMap((config) =>
      Effect.gen(function* () {
        const result = exportConfig(o.target, config, { image: Option.getOrUndefined(o.image) })
        const warnings = [...config.warnings, ...result.warnings]
        for (const w of warnings) yield* warn(`${w}`)
        const written = Option.isSome(o.out)
          ? Option.some(yield* writeExport(o.out.value, result.files, o.force))
          : Option.none<ReadonlyArray<string>>()
        const check =
          o.check && result.files.length > 0
            ? yield* checkFiles(o.target, result.files, Option.getOrUndefined(o.out))
            : undefined
        if (o.json) {
          const files = Option.match(written, {
            onNone: () => result.files,
            onSome: (paths) => result.files.map((f, i) => ({ path: paths[i]!, content: f.content })),
          })
          yield* printJson(ExportOutput, { files, warnings, ...(check === undefined ? {} : { check }) })
        } else if (Option.isSome(written)) {
          for (const p of written.value) yield* Console.log(`wrote ${p}`)
        } else if (result.files.length === 0) {
          yield* Console.error("no daemons configured here: nothing to export")
        } else {
          const several = result.files.length > 1
          for (const f of result.files) {
            if (several) yield* Console.log(fileSeparator(f.path))
            yield* Effect.sync(() => process.stdout.write(f.content))
          }
        }
        if (check !== undefined) yield* reportCheck(check, o.json)
      }),
    ),
    Effect.catchTags({
      ConfigInvalid: (e) => reportInvalid(e, false),
      ExportWouldOverwrite: (e) =>
        Console.error(
          `${red("error:")} ${e.existing.length === 1 ? "a file exists" : "files exist"} in ${e.dir}: ${e.existing.join(", ")}; nothing was written. Add --force to replace them, or choose another --out directory`,
        ).pipe(Effect.zipRight(exitWith(ExitCode.failure))),
      ExportWriteFailed: (e) =>
        Console.error(`${red("error:")} cannot write ${e.path}: ${e.message}`).pipe(
          Effect.zipRight(exitWith(ExitCode.failure)),
        ),
    }),
  )
