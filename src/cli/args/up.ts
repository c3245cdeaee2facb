// The options of `supervisor up` and `supervisor down` (CI mode, docs/ci.md), and their types.
import { type Command, Options } from "@effect/cli"
import { all, ids, json } from "../options.js"

export const upOptions = {
  ids,
  all,
  wait: Options.boolean("wait").pipe(
    Options.withDescription("wait until every daemon is ready (the default; process-compose's up --wait)"),
  ),
  timeout: Options.text("timeout").pipe(
    Options.withDescription("bound the whole wait (a duration: 30s, 2m); daemons not ready by then fail"),
    Options.optional,
  ),
  exitOnFailure: Options.boolean("exit-on-failure").pipe(
    Options.withDescription("when a daemon fails, stop what up started, then exit non-zero"),
  ),
  timings: Options.boolean("timings").pipe(
    Options.withDescription(
      "then print, on stderr, each daemon's wait for its dependencies, spawn and readiness, and the critical chain",
    ),
  ),
  json,
}
export type UpOptions = Command.Command.ParseConfig<typeof upOptions>

export const downOptions = { ids, json }
export type DownOptions = Command.Command.ParseConfig<typeof downOptions>
