import { readFileSync } from "node:fs"
import { Console, Effect, Schema } from "effect"
import { defaultLoadOptions, loadConfig } from "../../config/Loader.js"
import { locateKey } from "../../config/locate.js"
import { ConfigProblems, ConfigVerdict } from "../../domain/CliOutput.js"
import { type ConfigInvalid, formatProblem } from "../../domain/ConfigProblem.js"
import { DaemonConfig } from "../../domain/DaemonConfig.js"
import { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { maskResolvedConfig } from "../../domain/secrets.js"
import { bold, cyan, dim, ExitCode, exitWith, green, printJson, red, warn } from "../output.js"
import { shortReadiness, tomlInline } from "../tomlInline.js"

/** Prints every problem (and warning) to stderr, and as JSON to stdout with --json; exit code 1. */
export const reportInvalid = (e: ConfigInvalid, asJson: boolean) =>
  Effect.gen(function* () {
    for (const w of e.warnings) yield* warn(`${w}`)
    for (const p of e.problems) yield* Console.error(`${red("error:")} ${formatProblem(p)}`)
    yield* Console.error(`${e.problems.length} problem${e.problems.length === 1 ? "" : "s"} found`)
    if (asJson) {
      yield* printJson(ConfigProblems, { valid: false, problems: e.problems, warnings: e.warnings })
    }
    yield* exitWith(ExitCode.failure)
  })

const encodeDaemon = Schema.encodeSync(DaemonConfig)

/** `depends` in the form it is written: an ID, or `{ id, condition }` when it waits for more than readiness. */
const shownDepends = (
  depends: ReadonlyArray<string>,
  conditions: Readonly<Record<string, string>>,
): ReadonlyArray<string | { id: string; condition: string }> =>
  depends.map((id) => {
    const condition = conditions[id]
    return condition === undefined ? id : { id, condition }
  })

/** `supervisor config show`: the merged configuration. */
export const show = (json: boolean) =>
  loadConfig(defaultLoadOptions()).pipe(
    // secrets (general.secret_patterns) never leave as written
    Effect.map(maskResolvedConfig),
    Effect.flatMap((config) =>
      Effect.gen(function* () {
        // the member of the declared ConfigShown that applies: no union check of the whole configuration
        if (json) return yield* printJson(ResolvedConfig, config)
        for (const w of config.warnings) yield* warn(`${w}`)
        yield* Console.log(bold("Files") + dim(" (load order, later overrides earlier)"))
        if (config.files.length === 0) yield* Console.log(dim("  none found: create supervisor.toml here"))
        for (const f of config.files)
          yield* Console.log(`  ${f.level.padEnd(8)} ${f.namespace.padEnd(16)} ${f.path}`)
        const daemons = Object.values(config.daemons)
        yield* Console.log(`\n${bold("Daemons")} ${dim(`(${daemons.length})`)}`)
        for (const d of daemons) {
          const { run, dir, ...rest } = encodeDaemon(d.config)
          yield* Console.log(`  ${cyan(d.id.qualified)}`)
          yield* Console.log(`    ${"run".padEnd(13)}${run}`)
          yield* Console.log(`    ${"dir".padEnd(13)}${dir}`)
          yield* Console.log(`    ${"source".padEnd(13)}${d.sources.join(", ")}`)
          const defaults = encodeDaemon(new DaemonConfig({ run, dir })) as Record<string, unknown>
          for (const [k, v] of Object.entries(rest)) {
            if (k === "depends_conditions" || JSON.stringify(v) === JSON.stringify(defaults[k])) continue
            // as it would be written in supervisor.toml: `ready_http "http://…"`, not the parsed struct
            const shown =
              k === "depends"
                ? shownDepends(d.config.depends, d.config.depends_conditions)
                : k.startsWith("ready_")
                  ? shortReadiness(k, v)
                  : v
            yield* Console.log(`    ${k.padEnd(12)} ${typeof shown === "string" ? shown : tomlInline(shown)}`)
          }
        }
        const groups = Object.entries(config.groups)
        if (groups.length > 0) {
          yield* Console.log(`\n${bold("Groups")}`)
          for (const [name, g] of groups) yield* Console.log(`  ${name.padEnd(16)} ${g.daemons.join(", ")}`)
        }
      }),
    ),
    Effect.catchTag("ConfigInvalid", (e) => reportInvalid(e, json)),
  )

/** `supervisor config validate`: every problem of every file, exit code 1 if any. */
export const validate = (json: boolean) =>
  loadConfig(defaultLoadOptions()).pipe(
    Effect.flatMap((config) =>
      Effect.gen(function* () {
        // Groups naming missing daemons are only reported when used; validate warns about them.
        const lineOf = (file: string, path: ReadonlyArray<string | number>) => {
          try {
            const line = locateKey(readFileSync(file, "utf8"), path)
            return line === undefined ? "" : `:${line}`
          } catch {
            return ""
          }
        }
        const missing = Object.entries(config.groups).flatMap(([name, g]) =>
          g.daemons.flatMap((d, i) =>
            d in config.daemons
              ? []
              : [
                  `${g.source}${lineOf(g.source, ["groups", name, "daemons"])}: groups.${name}.daemons[${i}]: ${d} is not a configured daemon`,
                ],
          ),
        )
        const warnings = [...config.warnings, ...missing]
        const daemons = Object.keys(config.daemons).length
        if (json)
          return yield* printJson(ConfigVerdict, {
            valid: true,
            files: config.files.map((f) => f.path),
            daemons,
            warnings,
          })
        for (const w of warnings) yield* warn(`${w}`)
        yield* Console.log(
          `${green("✓")} configuration is valid: ${daemons} daemon${daemons === 1 ? "" : "s"} in ${config.files.length} file${config.files.length === 1 ? "" : "s"}`,
        )
      }),
    ),
    Effect.catchTag("ConfigInvalid", (e) => reportInvalid(e, json)),
  )
