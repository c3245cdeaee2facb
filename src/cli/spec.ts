import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"

/**
 * `supervisor spec ...`: the usage spec (KDL) tools on any spec file, for authors and build
 * scripts. Each subcommand reads FILE (`-` is stdin), and on a spec with problems prints every
 * one of them to stderr and exits 1; usage errors exit 2 (see docs/usage-spec.md).
 *
 * Only the flags are declared here. What the commands do (src/usage/cli/actions.ts) is imported
 * when one runs: the KDL parser and the generators are a third of the bundle, and loading them
 * for every command would slow down all of them.
 */

type Actions = typeof import("../usage/cli/actions.js")

const lazy =
  <O>(pick: (actions: Actions) => (options: O) => Effect.Effect<void>) =>
  (options: O) =>
    Effect.promise(() => import("../usage/cli/actions.js")).pipe(Effect.flatMap((m) => pick(m)(options)))

const file = Args.text({ name: "file" }).pipe(Args.withDescription("the spec (KDL); - reads it from stdin"))
const json = Options.boolean("json").pipe(Options.withDescription("print machine-readable JSON"))

const check = Command.make(
  "check",
  { file },
  lazy((a) => a.check),
).pipe(Command.withDescription("check a spec: exit 0, or print every problem and exit 1"))

const resolve = Command.make(
  "resolve",
  { file, json },
  lazy((a) => a.resolve),
).pipe(Command.withDescription("show each command's effective outputs, select and exit codes"))

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
  lazy((a) => a.docs),
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
  lazy((a) => a.describe),
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
  lazy((a) => a.sdk),
).pipe(Command.withDescription("generate a TypeScript or Python SDK"))

const fmt = Command.make(
  "fmt",
  {
    file,
    write: Options.boolean("write").pipe(
      Options.withDescription("rewrite FILE in place instead of printing"),
    ),
  },
  lazy((a) => a.fmt),
).pipe(Command.withDescription("print the spec as the KDL writer formats it (--write: in place)"))

const complete = Command.make(
  "complete",
  {
    file,
    shell: Options.choice("shell", ["bash", "zsh", "fish"]).pipe(Options.withDescription("the shell")),
  },
  lazy((a) => a.complete),
).pipe(Command.withDescription("print a completion script for the spec's program"))

export const specCommand = Command.make("spec").pipe(
  Command.withDescription("check, resolve and generate from usage specs (KDL)"),
  Command.withSubcommands([check, resolve, docs, describe, sdk, fmt, complete]),
)
