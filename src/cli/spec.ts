import { Args, Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

/**
 * `supervisor spec ...`: the usage spec (KDL) tools on any spec file, for authors and build
 * scripts. Each subcommand reads FILE (`-` is stdin), and on a spec with problems prints every
 * one of them to stderr and exits 1; usage errors exit 2 (see docs/usage-spec.md).
 *
 * Only the flags are declared here. What the commands do (src/cli/usageSpec/actions.ts) is imported
 * when one runs: the KDL parser and the generators are a third of the bundle, and loading them
 * for every command would slow down all of them.
 */

const load = () => import("./usageSpec/actions.js")

const file = Args.text({ name: "file" }).pipe(Args.withDescription("the spec (KDL); - reads it from stdin"))

const check = Command.make("check", { file }, (o) => lazy(load, (m) => m.check(o))).pipe(
  Command.withDescription("check a spec: exit 0, or print every problem and exit 1"),
)

const resolve = Command.make("resolve", { file, json }, (o) => lazy(load, (m) => m.resolve(o))).pipe(
  Command.withDescription("show each command's effective outputs, select and exit codes"),
)

const docs = Command.make(
  "docs",
  {
    file,
    format: Options.choice("format", ["markdown", "man"]).pipe(
      Options.withDescription("Markdown files (index.md, one per top-level command) or one man page"),
      Options.withDefault("markdown" as const),
    ),
    out: Options.directory("out").pipe(
      Options.withDescription("write the files into this directory instead of printing them"),
      Options.optional,
    ),
  },
  (o) => lazy(load, (m) => m.docs(o)),
).pipe(Command.withDescription("generate the Markdown reference or the man page"))

const describe = Command.make(
  "describe",
  {
    file,
    command: Args.text({ name: "command" }).pipe(
      Args.withDescription("the command's words after the program name (none: the program)"),
      Args.repeated,
    ),
    list: Options.boolean("list").pipe(Options.withDescription("list every command instead (list_commands)")),
  },
  (o) => lazy(load, (m) => m.describe(o)),
).pipe(Command.withDescription("the MCP describe_command JSON of a command (--list: list_commands)"))

const sdk = Command.make(
  "sdk",
  {
    file,
    lang: Options.choice("lang", ["typescript", "python"]).pipe(
      Options.withDescription("the SDK's language"),
    ),
    out: Options.directory("out").pipe(
      Options.withDescription("the directory to write the SDK's files into"),
    ),
  },
  (o) => lazy(load, (m) => m.sdk(o)),
).pipe(Command.withDescription("generate a TypeScript or Python SDK"))

const fmt = Command.make(
  "fmt",
  {
    file,
    write: Options.boolean("write").pipe(
      Options.withDescription("rewrite FILE in place instead of printing"),
    ),
  },
  (o) => lazy(load, (m) => m.fmt(o)),
).pipe(Command.withDescription("print the spec as the KDL writer formats it (--write: in place)"))

const complete = Command.make(
  "complete",
  {
    file,
    shell: Options.choice("shell", ["bash", "zsh", "fish"]).pipe(Options.withDescription("the shell")),
  },
  (o) => lazy(load, (m) => m.complete(o)),
).pipe(Command.withDescription("print a completion script for the spec's program"))

export const specCommand = Command.make("spec").pipe(
  Command.withDescription("check, resolve and generate from usage specs (KDL)"),
  Command.withSubcommands([check, resolve, docs, describe, sdk, fmt, complete]),
)
