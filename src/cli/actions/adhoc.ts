import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { currentNamespace, UnknownDaemon, UsageError } from "../../control/selection.js"
import { WaitResult } from "../../domain/CliOutput.js"
import { Run, Wait } from "../../domain/Command.js"
import { DaemonConfig } from "../../domain/DaemonConfig.js"
import { DaemonId, toIdObject } from "../../domain/DaemonId.js"
import { nameProblem } from "../../domain/Name.js"
import { signalExitStatus } from "../../domain/Signal.js"
import { shellWord } from "../../shell/quote.js"
import type { RunOptions, WaitOptions } from "../args/adhoc.js"
import { sendCommand } from "../commandClient.js"
import { here } from "../commandSelection.js"
import { cyan, dim, exitWith, printJson } from "../output.js"
import { portOverrides } from "../portOverrides.js"
import { startWithProgress } from "../progress.js"
import { readyOverrides, withReadiness } from "../readyFlags.js"
import { runCommandWords } from "../runArgs.js"
import { knownDaemons } from "../selection.js"
import { handleErrors, loadHere, withClient, withSupervisor } from "../session.js"
import { reportStart } from "../startReport.js"

/** `supervisor run ID -- CMD...`: an ad-hoc daemon that is in no config file. */
export const run = (o: RunOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const overrides = yield* readyOverrides(o)
      const config = yield* loadHere(false)
      const ports = yield* portOverrides(o, config.settings.supervisor.port_bump_attempts)
      if (Option.isSome(o.retry) && o.retry.value < 0)
        return yield* new UsageError({
          message: `--retry ${o.retry.value}: expected a number of retries, 0 or more`,
        })
      if (Option.isSome(ports.bump) && Option.isNone(ports.expect))
        return yield* new UsageError({ message: "--bump shifts the ports of --expected-port: give them too" })
      const command = runCommandWords(o.command)
      if (command.length === 0)
        return yield* new UnknownDaemon({
          message: "give the command after the ID: supervisor run ID -- CMD...",
        })
      const [ns, name] = o.id.includes("/")
        ? (o.id.split("/") as [string, string])
        : [currentNamespace(config), o.id]
      const problem = nameProblem(name) ?? nameProblem(ns)
      if (problem) return yield* new UnknownDaemon({ message: `invalid daemon ID ${o.id}: ${problem}` })
      const id = new DaemonId({ namespace: ns, name })
      const configured = config.daemons[id.qualified]
      if (configured !== undefined)
        return yield* new UnknownDaemon({
          message: `${id.qualified} is configured in ${configured.source}: start it with \`supervisor start ${o.id}\`, or give the ad-hoc daemon another ID`,
        })
      const def = withReadiness(
        {
          id: toIdObject(id),
          config: new DaemonConfig({
            run: command.map(shellWord).join(" "),
            dir: nodePath.resolve(process.cwd()),
            ...(Option.isSome(o.retry) ? { retry: o.retry.value } : {}),
            ...(Option.isSome(ports.expect)
              ? { port: { expect: ports.expect.value, bump: Option.getOrElse(ports.bump, () => false) } }
              : {}),
          }),
          adhoc: true,
          source: null,
        },
        overrides,
      )
      yield* withClient(
        config,
        Effect.gen(function* () {
          const known = yield* knownDaemons
          const started = yield* startWithProgress(
            (wait) => new Run({ definitions: [def], force: o.force, reason: "cli", wait }),
            { json: o.json, quiet: o.quiet, timestamps: config.settings.general.startup_log_timestamps },
          )
          yield* reportStart(started, {
            json: o.json,
            quiet: o.quiet,
            timestamps: config.settings.general.startup_log_timestamps,
          })
          // running already, with another command: this one was not started
          const before = known.find((k) => k.id.qualified === id.qualified)
          if (
            !o.json &&
            !o.quiet &&
            started.outcomes[0]?._tag === "AlreadyRunning" &&
            before?.run !== undefined &&
            before.run !== def.config.run
          )
            yield* Console.error(
              dim(
                `  it runs \`${before.run}\`, not this command; \`supervisor run ${o.id} --force -- ...\` replaces it`,
              ),
            )
        }),
      )
    }),
  )

/** `supervisor wait ID`: waits until a daemon exits; exits with its exit code. */
export const wait = (o: WaitOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      // the supervisor resolves the ID as typed here; a daemon configured here but never started
      // is not active: it answers `available`, there is nothing to wait for
      const where = here(config)
      const r = yield* sendCommand(
        new Wait({ id: o.id, ...(where === undefined ? {} : { from: where }), reason: "cli" }),
      )
      if (o.json) yield* printJson(WaitResult, r)
      else
        yield* Console.log(
          `${cyan(r.id)} ${r.status}${r.exit_code !== null ? ` (exit ${r.exit_code})` : r.signal ? ` (${r.signal})` : ""}`,
        )
      // an exit code of its `success_exit_codes` is a success
      const code = r.success ? 0 : (r.exit_code ?? (r.signal ? (signalExitStatus(r.signal) ?? 128) : 0))
      if (code !== 0) yield* exitWith(code)
    }),
  )
