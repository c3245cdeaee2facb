import * as nodePath from "node:path"
import { Console, Data, Effect, Schema } from "effect"
import { defaultLoadOptions, loadConfig } from "../config/Loader.js"
import type { UnknownDaemon, UsageError } from "../control/selection.js"
import { type ConfigInvalid, formatProblem } from "../domain/ConfigProblem.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { Settings } from "../domain/Settings.js"
import { type NotRunning, supervisorClientLayer, type VersionMismatch } from "./client.js"
import { ExitCode, exitWith, red, warn } from "./output.js"
import { isRemote } from "./remote.js"

/** A failure already explained to the user; carries the exit code. */
export class Reported extends Data.TaggedError("Reported")<{ readonly code: number }> {}

/** No configuration: a command that goes on without one, or a supervisor at a URL. */
export const emptyConfig = (cwd: string): ResolvedConfig => ({
  cwd,
  files: [],
  daemons: {},
  groups: {},
  slugs: {},
  settings: Schema.decodeSync(Settings)({}),
  warnings: [],
})

/** The configurations that stand for files that could not be read (their errors were printed). */
const unusable = new WeakSet<ResolvedConfig>()

/** True when `config` stands for files here that could not be read: a command went on without them. */
export const configUnusable = (config: ResolvedConfig): boolean => unusable.has(config)

/** An empty configuration, marked as standing for files that could not be read. */
const withoutFiles = (): ResolvedConfig => {
  const config = emptyConfig(nodePath.resolve(process.cwd()))
  unusable.add(config)
  return config
}

/**
 * The configuration seen from the current directory. Its problems are reported the same way
 * by every command, as errors, and the command exits 1. `strict`: they stop the command
 * (starting needs a valid config); otherwise it goes on without the configuration, so that one
 * can still stop, list and read logs of what the supervisor runs with a broken file.
 */
export const loadHere = (strict: boolean, unneeded?: string) =>
  // against a supervisor at a URL the files here are not its configuration: none is read
  (isRemote()
    ? Effect.succeed(emptyConfig(nodePath.resolve(process.cwd())))
    : loadConfig(defaultLoadOptions())
  ).pipe(
    Effect.tap((c) => Effect.forEach(c.warnings, warn)),
    Effect.catchTag("ConfigInvalid", (e: ConfigInvalid) =>
      Effect.gen(function* () {
        // a command that does not need the configuration (`unneeded` says why) acts in full:
        // its problems are warnings, and the exit status is the command's own
        if (unneeded !== undefined) {
          for (const p of e.problems) yield* warn(formatProblem(p))
          yield* warn(unneeded)
          return withoutFiles()
        }
        for (const p of e.problems) yield* Console.error(`${red("error:")} ${formatProblem(p)}`)
        if (strict) return yield* new Reported({ code: ExitCode.failure })
        yield* exitWith(ExitCode.failure)
        return withoutFiles()
      }),
    ),
  )

/** Runs `f` with a client connected to the supervisor (started in the background if needed). */
export const withClient = <A, E, R>(config: ResolvedConfig, f: Effect.Effect<A, E, R>) =>
  Effect.provide(
    f,
    supervisorClientLayer({ autoStart: config.settings.supervisor.auto_start ? true : "setting-off" }),
  )

/** Renders the errors every command shares and sets the exit code. */
export const handleErrors = <A, R>(
  effect: Effect.Effect<
    A,
    | Reported
    | NotRunning
    | VersionMismatch
    | UnknownDaemon
    | UsageError
    | { readonly _tag: string; readonly message?: string },
    R
  >,
) =>
  effect.pipe(
    Effect.catchAll((e) => {
      if (e._tag === "Reported") return exitWith((e as Reported).code)
      const message = "message" in e && e.message ? e.message : e._tag
      if (e._tag === "UsageError")
        return Console.error(`${red("error:")} ${message}`).pipe(Effect.zipRight(exitWith(ExitCode.usage)))
      return Console.error(`${red("error:")} ${message}`).pipe(Effect.zipRight(exitWith(ExitCode.failure)))
    }),
  )

/**
 * The shape of every command that talks to the supervisor: the configuration seen from
 * here (`strict`: problems are fatal), a connected client, and the shared error rendering.
 */
export const withSupervisor = <A, E extends { readonly _tag: string; readonly message?: string }, R>(
  strict: boolean,
  f: (config: ResolvedConfig) => Effect.Effect<A, E, R>,
) => handleErrors(Effect.flatMap(loadHere(strict), (config) => withClient(config, f(config))))
