import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { PROJECT_FILES } from "../../config/discover.js"
import { checkEdit, DaemonEditRefused, writeAtomic } from "../../config/edit/daemonFile.js"
import { defaultLoadOptions } from "../../config/Loader.js"
import { importFile, sourceLabel } from "../../import/index.js"
import { ImportOutput, renderToml } from "../../import/model.js"
import type { ImportOptions } from "../args/import.js"
import { dim, green, printJson, warn } from "../output.js"
import { handleErrors } from "../session.js"

/**
 * The file the loader would read the written text as: `out` itself when it is a project file
 * name, else a `supervisor.toml` beside it (the text is checked, the name does not matter).
 */
const checkedAs = (out: string) =>
  PROJECT_FILES.some((f) => out.endsWith(`${nodePath.sep}${f.rel}`))
    ? out
    : nodePath.join(nodePath.dirname(out), "supervisor.toml")

/** `supervisor import SOURCE FILE`: the file mapped, checked by the config loader, then written or printed. */
export const importAction = (o: ImportOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const cwd = process.cwd()
      const file = nodePath.resolve(cwd, o.file)
      const out = nodePath.resolve(
        cwd,
        Option.getOrElse(o.out, () => "supervisor.toml"),
      )
      const write = !o.dryRun
      if (write && fs.existsSync(out) && !o.force)
        return yield* new DaemonEditRefused({
          file: out,
          problem: "the file exists; nothing was written",
          hint: "add --force to overwrite it, --out FILE to write elsewhere, or --dry-run to print it",
        })
      const imported = yield* importFile(o.source, file, nodePath.dirname(out))
      const toml = renderToml(imported, sourceLabel(file, nodePath.dirname(out)))
      // the written text must load: checked by the loader itself, as it would read it from `out`'s place
      const target = checkedAs(out)
      const before = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined
      for (const w of imported.warnings) yield* warn(`${o.file}: ${w.key}: ${w.message}`)
      const checked = yield* Effect.either(
        checkEdit({ ...defaultLoadOptions(), cwd: nodePath.dirname(out) }, target, before, toml),
      )
      if (checked._tag === "Left") {
        const e = checked.left
        // --dry-run still prints the text: the problem's line is a line of it
        if (!write && !o.json) yield* Console.log(toml.trimEnd())
        return yield* new DaemonEditRefused({
          file: e.file === target ? out : e.file,
          ...(e.line === undefined ? {} : { line: e.line }),
          ...(e.key === undefined ? {} : { key: e.key }),
          problem: `${e.problem} (imported from ${o.file}; nothing was written)`,
          hint: `change that value in ${o.file}, or save the TOML of --dry-run and fix it there`,
        })
      }
      if (write) yield* writeAtomic(out, toml)
      if (o.json) return yield* printJson(ImportOutput, { toml, warnings: imported.warnings })
      if (!write) return yield* Console.log(toml.trimEnd())
      const n = imported.daemons.length
      yield* Console.log(
        `${green("imported")} ${n} daemon${n === 1 ? "" : "s"} ${dim(`from ${o.file} to ${out}`)}${
          imported.warnings.length > 0
            ? dim(` (${imported.warnings.length} warning${imported.warnings.length === 1 ? "" : "s"} above)`)
            : ""
        }`,
      )
    }),
  )
