import { Console, Effect } from "effect"
import { loadConfig } from "../../config/Loader.js"
import { stateDir } from "../../state/paths.js"
import { loadOrCreateToken } from "../../state/token.js"
import { SupervisorClient, supervisorClientLayer } from "../client.js"
import { ExitCode, exitWith } from "../output.js"

/** `supervisor supervisor token`: the API token of the TCP listeners (created when missing). */
export const token = () =>
  Effect.gen(function* () {
    // The supervisor reads its settings from the global files only: so does this.
    const config = yield* loadConfig({ cwd: "/", env: process.env }).pipe(Effect.option)
    const configured =
      config._tag === "Some" ? config.value.settings.api.token : process.env.SUPERVISOR_API_TOKEN
    yield* Console.log(loadOrCreateToken(stateDir(process.env), configured))
  })

/** `supervisor web`: a one-time login URL of the web UI. */
export const web = () =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const { url } = yield* c.api.cli.webLogin().pipe(Effect.orDie)
    if (url === null) {
      yield* Console.error(
        "error: the web UI is off; start the supervisor with `supervisor supervisor start --force --web-port 3120`, or set settings.web.auto_start = true in ~/.config/supervisor/config.toml",
      )
      return yield* exitWith(ExitCode.failure)
    }
    yield* Console.log(url)
  }).pipe(
    Effect.provide(supervisorClientLayer({ autoStart: false })),
    Effect.catchTag("NotRunning", (e) =>
      Console.error(`error: ${e.message}`).pipe(Effect.zipRight(exitWith(ExitCode.failure))),
    ),
  )
