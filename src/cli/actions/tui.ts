import { spawn } from "node:child_process"
import * as path from "node:path"
import { Console, Duration, Effect, FiberRef, Option } from "effect"
import { UsageError } from "../../control/selection.js"
import type { TuiOptions } from "../args/tui.js"
import { SupervisorClient } from "../client.js"
import { ExitCode, exitStatus, exitWith, red } from "../output.js"
import { handleErrors, withSupervisor } from "../session.js"
import { projectDir, tuiScope } from "../tuiScope.js"

/**
 * `supervisor tui`: checks its terminal and its options, connects (starting the supervisor as
 * every command does), then runs the dashboard: dist/tui.mjs, an ESM bundle (Ink's layout
 * engine needs top-level await), in a child process with this terminal, whose exit it takes.
 */
export const tui = (o: TuiOptions) =>
  Effect.gen(function* () {
    const given = Option.getOrUndefined(o.interval)
    if (given !== undefined && !(given >= 0.1 && given <= 60))
      return yield* handleErrors(
        Effect.fail(
          new UsageError({
            message: `--interval ${given}: give seconds from 0.1 to 60 (e.g. --interval 2)`,
          }),
        ),
      )
    // a bad scope is a usage error, as a bad --interval, terminal or not
    const scope = yield* handleErrors(tuiScope(o))
    if ((yield* FiberRef.get(exitStatus)) !== 0 || scope === undefined) return
    if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
      yield* Console.error(
        `${red("error:")} supervisor tui needs a terminal (its input and output are not one); use \`supervisor list\` or \`supervisor logs\` in scripts`,
      )
      return yield* exitWith(ExitCode.usage)
    }
    // the same connection as every command: the project here (and --project's) becomes known,
    // so that its configured daemons are listed before they ran; auto-start applies. Without
    // --interval, `settings.tui.refresh_rate` of the configuration seen from here
    const intervalMs = yield* withSupervisor(false, (config) =>
      Effect.gen(function* () {
        if (Option.isSome(o.project)) {
          const c = yield* SupervisorClient
          yield* c.api.cli.info({ urlParams: { cwd: yield* projectDir(o.project.value) } })
        }
        return given === undefined
          ? Duration.toMillis(config.settings.tui.refresh_rate)
          : Math.round(given * 1000)
      }),
    )
    if ((yield* FiberRef.get(exitStatus)) !== 0 || typeof intervalMs !== "number") return
    const code = yield* Effect.async<number>((resume) => {
      const child = spawn(
        process.execPath,
        [
          path.join(path.dirname(process.argv[1]!), "tui.mjs"),
          "--interval-ms",
          String(intervalMs),
          ...scope.flatMap((ns) => ["--namespace", ns]),
        ],
        { stdio: "inherit" },
      )
      // Ctrl-C reaches the dashboard as a key (raw mode); a SIGINT sent to the group ends it alone
      const ignore = () => {}
      process.on("SIGINT", ignore)
      child.once("error", (e) => {
        process.off("SIGINT", ignore)
        process.stderr.write(`${red("error:")} could not run the dashboard: ${e.message}\n`)
        resume(Effect.succeed(ExitCode.failure))
      })
      child.once("exit", (c, signal) => {
        process.off("SIGINT", ignore)
        resume(Effect.succeed(c ?? (signal === null ? 0 : ExitCode.failure)))
      })
    })
    if (code !== 0) yield* exitWith(code)
  })
