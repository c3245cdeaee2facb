import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect } from "effect"
import { formatProblem } from "../domain/ConfigProblem.js"
import { stateDir, statePaths } from "../state/paths.js"
import type { ContainerFlags } from "./container/mode.js"
import { filesAndPaths } from "./httpContext.js"
import { closeInheritedFds } from "./inheritedFds.js"
import { guardOutputFile } from "./logSink.js"
import { dropMallocTuning } from "./mallocTuning.js"
import { replaceRunning } from "./replace.js"
import { runHost } from "./run.js"

/**
 * `supervisor supervisor run [--boot] [--force] [--container ...]`: the supervisor process in the
 * foreground. SIGTERM and SIGINT stop every daemon gracefully, then it exits 0. A supervisor that
 * cannot start says why, and its exit status (1, 2 for flags that do not go together) is given to
 * `exit`, the entry's (src/host-entry.ts); so is 1 after container mode's `--exit-on-failure`.
 */
export const hostMain = (options: {
  readonly boot?: boolean
  /** Replace a supervisor already running for the state directory (it leaves its daemons). */
  readonly force?: boolean
  readonly container?: ContainerFlags
  readonly exit: (status: number) => void
}) => {
  // Before anything is spawned: daemons, hooks and checks must not hold the caller's descriptors,
  // nor inherit the malloc tuning the supervisor was started with.
  closeInheritedFds()
  dropMallocTuning(process.env)
  // A full disk must not kill the supervisor through a failed write of its own log.
  const dir = stateDir(process.env)
  const outputGuards = [
    guardOutputFile(process.stdout, 1, statePaths(dir).supervisorLog),
    guardOutputFile(process.stderr, 2, statePaths(dir).supervisorLog),
  ]
  const failed = Effect.sync(() => options.exit(1))
  const replaced =
    options.force === true
      ? Effect.promise(() => replaceRunning(statePaths(dir).socket, statePaths(dir).dir))
      : Effect.succeed(false)
  return replaced
    .pipe(
      Effect.flatMap((was) =>
        was === true
          ? Console.error("replaced the running supervisor; its daemons are adopted")
          : Effect.void,
      ),
      Effect.zipRight(
        runHost({
          stateDir: dir,
          env: process.env,
          boot: options.boot === true,
          outputGuards,
          ...(options.container === undefined ? {} : { container: options.container }),
        }),
      ),
      Effect.flatMap((status) => (status === 0 ? Effect.void : Effect.sync(() => options.exit(status)))),
    )
    .pipe(
      Effect.catchTags({
        AlreadyRunning: (e) =>
          Console.error(`a supervisor is already running for ${e.stateDir}`).pipe(Effect.zipRight(failed)),
        ListenError: (e) => Console.error(`error: ${e.message}`).pipe(Effect.zipRight(failed)),
        ContainerFlagsInvalid: (e) =>
          Console.error(`error: ${e.message}`).pipe(Effect.zipRight(Effect.sync(() => options.exit(2)))),
        ConfigInvalid: (e) =>
          Effect.forEach(e.problems, (p) => Console.error(`error: ${formatProblem(p)}`)).pipe(
            Effect.zipRight(failed),
          ),
      }),
      // not NodeContext: its terminal would open stdin at once (httpContext.ts)
      Effect.provide(filesAndPaths),
      NodeRuntime.runMain({ disableErrorReporting: false }),
    )
}
