import { Console, Effect, Option } from "effect"
import { defaultLoadOptions, loadConfig } from "../../config/Loader.js"
import { ExportOutput } from "../../domain/ExportOutput.js"
// a bundle of its own (dist/export.cjs, scripts/build.mjs): only this command loads the exporters and yaml
import { type ExportTarget, exportConfig } from "../../export/index.js"
import { writeExport } from "../../export/write.js"
import { ExitCode, exitWith, printJson, red, warn } from "../output.js"
import { reportInvalid } from "./config.js"

/** The separator printed before each file when several go to stdout. */
export const fileSeparator = (path: string): string => `# ==> ${path} <==`

interface ExportFlags {
  readonly target: ExportTarget
  readonly out: Option.Option<string>
  readonly image: Option.Option<string>
  readonly force: boolean
  readonly json: boolean
}

/** `supervisor export <target>`: print the files, or write them under --out. */
export const exportTo = (o: ExportFlags) =>
  Option.isSome(o.image) && o.target !== "kubernetes"
    ? Console.error(
        `${red("error:")} --image is for kubernetes only: ${o.target} keeps its image as exported; drop --image`,
      ).pipe(Effect.zipRight(exitWith(ExitCode.usage)))
    : exportWith(o)

const exportWith = (o: ExportFlags) =>
  loadConfig(defaultLoadOptions()).pipe(
    Effect.flatMap((config) =>
      Effect.gen(function* () {
        const result = exportConfig(o.target, config, { image: Option.getOrUndefined(o.image) })
        const warnings = [...config.warnings, ...result.warnings]
        for (const w of warnings) yield* warn(`${w}`)
        if (Option.isSome(o.out)) {
          const written = yield* writeExport(o.out.value, result.files, o.force)
          if (o.json)
            return yield* printJson(ExportOutput, {
              files: result.files.map((f, i) => ({ path: written[i]!, content: f.content })),
              warnings,
            })
          for (const p of written) yield* Console.log(`wrote ${p}`)
          return
        }
        if (o.json) return yield* printJson(ExportOutput, { files: result.files, warnings })
        if (result.files.length === 0) {
          yield* Console.error("no daemons configured here: nothing to export")
          return
        }
        const several = result.files.length > 1
        for (const f of result.files) {
          if (several) yield* Console.log(fileSeparator(f.path))
          yield* Effect.sync(() => process.stdout.write(f.content))
        }
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
