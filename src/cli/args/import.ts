import { Args, type Command, Options } from "@effect/cli"
import { json } from "../options.js"

// `supervisor import procfile|pm2|compose FILE [--out FILE] [--force] [--dry-run] [--json]`:
// a supervisor.toml written from another tool's file (src/import/, actions/import.ts).

/** The sources, written out: src/import/ is loaded only when the command runs (lazy.ts). */
export const IMPORT_SOURCES = ["procfile", "pm2", "compose"] as const

export const importOptions = {
  source: Args.choice(
    IMPORT_SOURCES.map((s) => [s, s] as const),
    { name: "source" },
  ).pipe(
    Args.withDescription("the file's tool: procfile, pm2 (ecosystem file) or compose (process-compose)"),
  ),
  file: Args.text({ name: "file" }).pipe(
    Args.withDescription("the Procfile, ecosystem file or process-compose YAML"),
  ),
  out: Options.text("out").pipe(
    Options.withDescription("the file to write (default: supervisor.toml in the current directory)"),
    Options.optional,
  ),
  force: Options.boolean("force").pipe(Options.withDescription("overwrite the file when it exists")),
  dryRun: Options.boolean("dry-run").pipe(Options.withDescription("print the TOML instead of writing it")),
  json,
}
export type ImportOptions = Command.Command.ParseConfig<typeof importOptions>
