import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { lazy } from "./lazy.js"
import { json } from "./options.js"
import { ProcessExit } from "./program.js"
import { tokenCommand } from "./web.js"

const webPort = Options.integer("web-port").pipe(
  Options.withDescription("serve the web UI and the HTTP API on 127.0.0.1:PORT (0 picks a free port)"),
  Options.optional,
)

const webPath = Options.text("web-path").pipe(
  Options.withDescription(
    "serve the web UI and the HTTP API under this path (a reverse proxy in front); / redirects to it",
  ),
  Options.optional,
)

const boot = Options.boolean("boot").pipe(
  Options.withDescription("start the daemons marked boot_start (global config and known projects) once"),
)

const container = Options.boolean("container").pipe(
  Options.withDescription(
    "container mode (on by itself as PID 1): orphans reaped, each daemon's output on stdout as `name | line`, SIGTERM stops every daemon in order then exits 0",
  ),
)

const logFormat = Options.choice("log-format", ["text", "json"]).pipe(
  Options.withDescription("container mode: the daemons' lines as `name | line` (text) or JSON lines (json)"),
  Options.optional,
)

const exitOnFailure = Options.boolean("exit-on-failure").pipe(
  Options.withDescription(
    "container mode: when a daemon fails for good, stop every daemon in order and exit 1 (default: keep running)",
  ),
)

const load = () => import("./actions/host.js")

// The launcher runs host.cjs itself for `supervisor supervisor run`; this handler serves the
// other entry points (cli.cjs run directly: the build externalises ../host/main.js to host.cjs).
const run = Command.make(
  "run",
  {
    force: Options.boolean("force").pipe(
      Options.withAlias("f"),
      Options.withDescription(
        "replace a supervisor already running (it leaves its daemons, this one adopts them)",
      ),
    ),
    webPort,
    webPath,
    boot,
    container,
    logFormat,
    exitOnFailure,
  },
  ({ force, webPort, webPath, boot, container, logFormat, exitOnFailure }) =>
    Effect.sync(() => {
      if (webPort._tag === "Some") process.env.SUPERVISOR_WEB_PORT = String(webPort.value)
      if (webPath._tag === "Some") process.env.SUPERVISOR_WEB_PATH = webPath.value
    }).pipe(
      Effect.zipRight(Effect.promise(() => import("../host/main.js"))),
      Effect.zip(ProcessExit),
      Effect.flatMap(([m, exit]) =>
        Effect.sync(() =>
          m.hostMain({
            boot,
            force,
            container: {
              container,
              logFormat: logFormat._tag === "Some" ? logFormat.value : undefined,
              exitOnFailure,
            },
            exit,
          }),
        ),
      ),
    ),
).pipe(Command.withDescription("run the supervisor in the foreground (containers, tests)"))

const start = Command.make(
  "start",
  {
    force: Options.boolean("force").pipe(
      Options.withAlias("f"),
      Options.withDescription("restart it if it runs"),
    ),
    webPort,
    webPath,
    boot,
  },
  ({ force, webPort, webPath, boot }) => lazy(load, (m) => m.start(force, webPort, webPath, boot)),
).pipe(Command.withDescription("start the supervisor in the background"))

const stop = Command.make("stop", {}, () => lazy(load, (m) => m.stop())).pipe(
  Command.withDescription("stop every daemon and the supervisor"),
)

const status = Command.make("status", { json }, ({ json }) => lazy(load, (m) => m.status(json))).pipe(
  Command.withDescription("is the supervisor running? pid, version, uptime, socket"),
)

export const supervisorCommand = Command.make("supervisor").pipe(
  Command.withDescription("manage the supervisor process itself"),
  Command.withSubcommands([run, start, stop, status, tokenCommand]),
)
