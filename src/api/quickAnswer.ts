// `POST /api/cli/quick`: a whole command answered by the supervisor for the native quick client
// (src/quick/native/quick.c): what it prints on stdout and stderr and its exit status, as the
// quick client (src/quick/) prints them, without colours. For `list --json`, the simple forms of
// `stop` (src/quick/stop.ts) and those of `start` with `--quiet` or `--json` (no progress to
// draw); anything else, or anything the CLI must say itself (another version, configuration
// warnings, an ID to complain about), is a 409 `Fallback` before anything was done, and the
// client runs the CLI instead.
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Either, Exit, Schema } from "effect"
import type { Presence } from "../automation/presence/Presence.js"
import type { ControlShape } from "../control/Control.js"
import { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { Start, Stop } from "../domain/Command.js"
import { noticeLines } from "../domain/cliNotices.js"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { parseStartArgs, parseStopArgs, selectionFrom } from "../domain/quickForms.js"
import { showsOnStderr, stderrLevelProblem } from "../domain/stderrLevel.js"
import { VERSION_HEADER } from "../domain/version.js"
import { outcomeStatus, startReportLines } from "../terminal/startText.js"
import { NOTHING_TO_STOP, stopLine } from "../terminal/stopText.js"
import { withoutColors } from "../terminal/style.js"
import { QuickAnswer, QuickRequest } from "./Api.js"
import { problem } from "./problem.js"
import { decodeBody } from "./respond.js"

const fallback = (why: string) => problem(409, "Fallback", why)
const encodeEntries = Schema.encode(Schema.Array(ApiDaemonEntry))
const encodeAnswer = Schema.encode(QuickAnswer)
/** The commands' own names of the aliases dist/quick is run for (scripts/entry.sh; src/cli/aliases.ts). */
const ALIASES: Readonly<Record<string, string>> = { ls: "list", s: "start" }

/** What a command printed, and its status; undefined: the CLI's to answer. */
type Printed = { readonly stdout: string; readonly stderr?: string; readonly exit: number } | undefined

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

export const quickAnswer =
  (control: ControlShape, host: HostInfoShape, presence: Pick<typeof Presence.Service, "takeNotices">) =>
  (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const decoded = yield* decodeBody(request, QuickRequest)
      if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed quick request")
      // a client of another version runs its own CLI
      if (request.headers[VERSION_HEADER] !== host.version) return fallback("another version")
      const { argv, cwd, env } = decoded.right
      // the CLI names a bad SUPERVISOR_LOG
      if (stderrLevelProblem(env) !== undefined) return fallback("SUPERVISOR_LOG")
      const [typed = "", ...args] = argv
      const name = ALIASES[typed] ?? typed
      const here: Here = { control, cwd, env }
      const printed: Printed =
        name === "list" && args.length === 1 && args[0] === "--json"
          ? yield* list(here)
          : name === "stop"
            ? yield* stop(here, args)
            : name === "start"
              ? yield* start(here, args)
              : undefined
      if (printed === undefined) return fallback(`${name} ${args.join(" ")}`)
      const notices = yield* presence.takeNotices
      const answer = yield* encodeAnswer({
        exit: printed.exit,
        stdout: printed.stdout,
        stderr: (printed.stderr ?? "") + (showsOnStderr("info", env) ? noticeLines(notices) : ""),
      })
      return HttpServerResponse.unsafeJson(answer, { headers: { "cache-control": "no-store" } })
    }).pipe(Effect.orDie)

/** Where a quick command runs: the supervisor's Control, the client's directory and environment. */
interface Here {
  readonly control: ControlShape
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

/** `list --json`: the listing of the configuration seen from `cwd`, unless it has warnings. */
const list = ({ control, cwd, env }: Here) =>
  Effect.gen(function* () {
    const entries = yield* control.listFrom({ cwd, env })
    if (entries === undefined) return undefined
    return { stdout: pretty(yield* encodeEntries(entries)), exit: 0 }
  })

/**
 * `stop` of the forms src/quick/stop.ts takes, without colours (the client asks only for a
 * stdout that is not a terminal, or NO_COLOR): strict, so that configuration warnings and IDs the
 * CLI would complain about refuse it before anything is stopped.
 */
const stop = ({ control, cwd, env }: Here, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const parsed = parseStopArgs(args)
    if (parsed === undefined) return undefined
    const command = yield* Schema.decodeUnknown(Stop)({
      _tag: "Stop",
      selection: selectionFrom(parsed, cwd, env),
      reason: "cli",
    })
    const exit = yield* Effect.exit(control.handle(command))
    if (Exit.isFailure(exit)) return undefined
    const results = exit.value
    if (parsed.json) return { stdout: pretty(yield* Schema.serializeSuccess(command, results)), exit: 0 }
    if (parsed.quiet) return { stdout: "", exit: 0 }
    return {
      stdout:
        results.length === 0
          ? `${NOTHING_TO_STOP}\n`
          : withoutColors(() => results.map((r) => `${stopLine(r)}\n`).join("")),
      exit: 0,
    }
  })

/**
 * `start` of the forms src/quick/start.ts takes, with `--quiet` or `--json`: answered once every
 * daemon is ready or failed, with the lines and status the quick client gives.
 */
const start = ({ control, cwd, env }: Here, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const parsed = parseStartArgs(args)
    if (parsed === undefined || !(parsed.quiet || parsed.json)) return undefined
    const command = yield* Schema.decodeUnknown(Start)({
      _tag: "Start",
      selection: selectionFrom(parsed, cwd, env),
      force: parsed.force,
      reason: "cli",
      wait: "ready",
    })
    const exit = yield* Effect.exit(control.handle(command))
    if (Exit.isFailure(exit)) return undefined
    const outcomes = exit.value
    if (parsed.json)
      return {
        stdout: pretty(yield* Schema.serializeSuccess(command, outcomes)),
        exit: outcomeStatus(outcomes),
      }
    const { lines, code } = withoutColors(() => startReportLines(outcomes, { quiet: true }))
    const on = (stream: "stdout" | "stderr") =>
      lines
        .filter((l) => l.stream === stream)
        .map((l) => `${l.text}\n`)
        .join("")
    return { stdout: on("stdout"), stderr: on("stderr"), exit: code }
  })
