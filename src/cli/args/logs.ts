// The options of `supervisor logs` and their types: what the command (cli/logs.ts)
// parses and its action (actions/logs.ts) receives.

import { Args, type Command, Options } from "@effect/cli"
import { LOG_LEVELS } from "../../domain/LogFormat.js"

export const logsOptions = {
  ids: Args.text({ name: "id" }).pipe(Args.withDescription("daemons (default: every daemon)"), Args.repeated),
  lines: Options.integer("lines").pipe(
    Options.withAlias("n"),
    Options.withDescription("the last N lines"),
    Options.optional,
  ),
  since: Options.text("since").pipe(
    Options.withAlias("s"),
    Options.withDescription("only lines since this time (5min, 2h, or a date)"),
    Options.optional,
  ),
  until: Options.text("until").pipe(
    Options.withAlias("u"),
    Options.withDescription("only lines until this time"),
    Options.optional,
  ),
  grep: Options.text("grep").pipe(
    Options.withDescription(
      "only lines containing this text (case-insensitive); repeat it for any of several",
    ),
    Options.repeated,
  ),
  caseSensitive: Options.boolean("case-sensitive").pipe(
    Options.withDescription("make --grep and --regex case-sensitive"),
  ),
  regex: Options.text("regex").pipe(
    Options.withDescription("only lines matching this regular expression (or any --grep)"),
    Options.optional,
  ),
  // `--strip-ansi`: what it does; `--raw` (pitchfork's name) reads as "unformatted", kept as an alias
  raw: Options.boolean("strip-ansi").pipe(
    Options.withAlias("raw"),
    Options.withDescription(
      "strip ANSI colour codes from the lines (the daemon's colours; --raw is the same)",
    ),
  ),
  noTimestamp: Options.boolean("no-timestamp").pipe(Options.withDescription("leave out the timestamps")),
  json: Options.boolean("json").pipe(
    Options.withDescription("JSON (an array; one object per line with --tail)"),
  ),
  tail: Options.boolean("tail").pipe(
    Options.withAlias("f"),
    Options.withAlias("t"),
    Options.withAlias("follow"),
    Options.withDescription("follow: print new lines as they come"),
  ),
  clear: Options.boolean("clear").pipe(
    Options.withAlias("c"),
    Options.withDescription("delete the logs of these daemons (or all)"),
  ),
  // pitchfork pages its output on a terminal; ours never does, so the flag has nothing to turn off
  noPager: Options.boolean("no-pager").pipe(
    Options.withDescription("accepted for pitchfork's scripts: logs are never paged"),
  ),
  level: Options.choice("level", LOG_LEVELS).pipe(
    Options.withDescription(
      "only lines of this level or a more severe one (trace, debug, info, warn, error, fatal); daemons with log_format json, logfmt or auto",
    ),
    Options.optional,
  ),
  field: Options.text("field").pipe(
    Options.withDescription(
      "only lines whose parsed field KEY reads VALUE (KEY=VALUE; repeat it: all must hold)",
    ),
    Options.repeated,
  ),
  jq: Options.text("jq").pipe(
    Options.withDescription(
      "only lines for which this jq expression holds, on the line as --json prints it (a subset of jq: docs/logs.md)",
    ),
    Options.optional,
  ),
}
export type LogsOptions = Command.Command.ParseConfig<typeof logsOptions>
