import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ApiDaemonEntry, ControlResult, SystemStats } from "../domain/ApiDaemonEntry.js"
import {
  NamespaceEntry,
  NamespaceRegistration,
  NamespaceResult,
  ProxyEntry,
} from "../domain/ApiNamespaces.js"
import {
  CleanResult,
  InputResult,
  LogsCleared,
  StopResults,
  SupervisorInfo,
  WaitResult,
} from "../domain/CliOutput.js"
import { InputRefused, UnknownDaemon, UsageError } from "../domain/CommandErrors.js"
import { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { BadDaemonId } from "../domain/DaemonId.js"
import { LogEntry, LogStreamItem } from "../domain/LogEntry.js"
import { LogFilters } from "../domain/LogFilters.js"
import { ProcessTreeNode } from "../domain/ProcessTree.js"
import { StartEvent, StartFromEvent } from "../domain/StartEvent.js"
import { StartOutcome } from "../domain/StartOutcome.js"
import { LiveStreamItem } from "../domain/SupervisorEvent.js"
import { UsageHistoryResponse } from "../domain/UsageHistory.js"
import { DaemonNotFound } from "../supervisor/errors.js"
import { CommandsGroup } from "./commandsGroup.js"
import { ndjsonBody } from "./ndjson.js"
import { PresenceGroup } from "./presenceGroup.js"

/**
 * A daemon ID in a path: ONE url-encoded segment (`ns%2Fname`). The typed client
 * does not encode path parameters itself, so the schema does it.
 */
export const IdSegment = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (s) => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  },
  encode: (s) => encodeURIComponent(s),
})
const idPath = Schema.Struct({ id: IdSegment })

// Every route of one daemon takes its ID in the path: one that is not `<namespace>/<name>` is a
// 400 BadDaemonId (the handlers check it), an unknown one a 404 DaemonNotFound or `ok: false`.
const control = <const Name extends string>(name: Name) =>
  HttpApiEndpoint.post(name, `/daemons/:id/${name}`)
    .setPath(idPath)
    .addSuccess(ControlResult)
    .addError(BadDaemonId, { status: 400 })

/** The spec's public routes. */
export class DaemonsGroup extends HttpApiGroup.make("daemons")
  .add(
    HttpApiEndpoint.get("list", "/daemons")
      .setUrlParams(
        Schema.Struct({
          /** Only these daemons (qualified IDs, repeated or comma-separated); an unknown one has no entry. */
          id: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
          /** `false`: no /proc figures (CPU, memory, active port are 0 and null); default `true`. */
          usage: Schema.optional(Schema.BooleanFromString),
        }),
      )
      .addSuccess(Schema.Array(ApiDaemonEntry)),
  )
  .add(
    HttpApiEndpoint.get("get", "/daemons/:id")
      .setPath(idPath)
      .addSuccess(ApiDaemonEntry)
      .addError(BadDaemonId, { status: 400 })
      .addError(DaemonNotFound, { status: 404 }),
  )
  .add(control("start"))
  .add(control("stop"))
  .add(control("restart"))
  .add(control("enable"))
  .add(control("disable"))
  .add(
    // an alias of the Input command (docs/attach.md)
    HttpApiEndpoint.post("input", "/daemons/:id/input")
      .setPath(idPath)
      .setPayload(
        Schema.Struct({
          text: Schema.optional(Schema.String),
          keys: Schema.optional(Schema.Array(Schema.String)),
          enter: Schema.optional(Schema.Boolean),
        }).annotations({ identifier: "InputRequest" }),
      )
      .addSuccess(InputResult)
      .addError(BadDaemonId, { status: 400 })
      .addError(UsageError, { status: 400 })
      .addError(DaemonNotFound, { status: 404 })
      .addError(UnknownDaemon, { status: 404 })
      .addError(InputRefused, { status: 409 }),
  )
  .add(HttpApiEndpoint.get("stats", "/stats").addSuccess(SystemStats))
  .add(HttpApiEndpoint.get("usage", "/usage").addSuccess(UsageHistoryResponse))
  .add(
    HttpApiEndpoint.get("tail", "/logs/:id/tail")
      .setPath(idPath)
      .setUrlParams(
        Schema.Struct({
          /** How many stored entries come first (default 10). */
          lines: Schema.optional(Schema.NumberFromString),
          /** Only entries at or after this time: epoch ms, or a duration ago such as `5min`. */
          since: Schema.optional(Schema.String),
          /** Only entries whose message contains this text (case-insensitive). */
          grep: Schema.optional(Schema.String),
        }),
      )
      .addSuccess(
        ndjsonBody(
          LogStreamItem,
          "ndjson, a LogStreamItem per line: the last stored entries, then each new one until the client leaves",
        ),
      )
      .addError(BadDaemonId, { status: 400 })
      .addError(DaemonNotFound, { status: 404 }),
  )
  .add(
    HttpApiEndpoint.get("events", "/events")
      .setUrlParams(
        Schema.Struct({
          /** Replay the retained events after this seq first (else the Last-Event-ID header; else none). */
          since: Schema.optional(Schema.String),
          /** Only these daemons' events (qualified IDs, repeated or comma-separated) and the supervisor's own. */
          id: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
          /** `true`: also a `UsageSampled` item every few seconds (every running daemon's CPU, memory, port and uptime). */
          usage: Schema.optional(Schema.BooleanFromString),
          /** `true`: after each event about a daemon, its listing entry (a `DaemonEntry` item, without usage figures). */
          entries: Schema.optional(Schema.BooleanFromString),
        }),
      )
      .addSuccess(
        ndjsonBody(
          LiveStreamItem,
          "ndjson, an EventStreamItem per line (Server-Sent Events with `Accept: text/event-stream`): the retained events after `since`, then each new one until the client leaves; with `usage=true` also the usage samples; with `entries=true` each daemon event's entry after it",
        ),
      ),
  )
  .add(HttpApiEndpoint.get("namespaces", "/namespaces").addSuccess(Schema.Array(NamespaceEntry)))
  .add(
    HttpApiEndpoint.post("registerNamespace", "/namespaces")
      .setPayload(NamespaceRegistration)
      .addSuccess(NamespaceResult),
  )
  .add(
    HttpApiEndpoint.del("removeNamespace", "/namespaces/:namespace")
      .setPath(Schema.Struct({ namespace: Schema.String }))
      .addSuccess(NamespaceResult),
  )
  .add(HttpApiEndpoint.get("proxies", "/proxies").addSuccess(Schema.Array(ProxyEntry)))
  .add(
    HttpApiEndpoint.get("tree", "/processes/:id/tree")
      .setPath(idPath)
      .addSuccess(Schema.Array(ProcessTreeNode))
      .addError(BadDaemonId, { status: 400 })
      .addError(DaemonNotFound, { status: 404 }),
  )
  .prefix("/api") {}

export const LogsQuery = Schema.Struct({
  ids: Schema.Array(Schema.String),
  ...LogFilters.fields,
})
/** `POST /api/cli/logs/text`: the stored lines of one daemon as plain text. */
export const LogsTextQuery = Schema.Struct({
  /** The qualified daemon ID. */
  id: Schema.String,
  /** Only the last N lines (default: all). */
  lines: Schema.optional(Schema.NonNegativeInt),
  /** Strip ANSI escape sequences. */
  raw: Schema.optional(Schema.Boolean),
  /** Put the timestamp (`YYYY-MM-DD HH:MM:SS `, the supervisor's local time) before each line. */
  timestamps: Schema.optional(Schema.Boolean),
})

/**
 * `POST /api/cli/logs/text-from`: the same for the quick client (src/quick/logs.ts), with the ID
 * as the user typed it, resolved by the supervisor as the CLI would from `cwd` with `env`.
 */
export const LogsTextFromRequest = Schema.Struct({
  /** The CLI's version: another one gets the fallback answer. */
  version: Schema.String,
  cwd: Schema.String,
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  ...LogsTextQuery.fields,
})

/**
 * The quick client's cue to leave the command to the full CLI (another version, configuration
 * warnings, an ID to complain about): nothing was done.
 */
export const Fallback = Schema.Struct({
  _tag: Schema.Literal("Fallback"),
  message: Schema.String,
}).annotations({ identifier: "Fallback" })

/** Lines of text, one per stored entry (docs/logs.md, "Reading logs as text"). */
const LogText = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/plain; charset=utf-8" }),
)

/**
 * `supervisor list --json` asked of the supervisor itself (src/quick/list.ts): it loads the
 * configuration seen from the CLI's directory with the CLI's environment.
 */
export const ListRequest = Schema.Struct({
  cwd: Schema.String,
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
})
export const ListAnswer = Schema.Struct({
  version: Schema.String,
  /**
   * Sorted as the CLI sorts them (src/domain/idOrder.ts). Null when the configuration has warnings
   * or problems: the CLI then lists (and reports) itself.
   */
  entries: Schema.NullOr(Schema.Array(ApiDaemonEntry)),
})

/**
 * `supervisor ARGV` asked of the supervisor by the native quick client (src/quick/native/quick.c),
 * with the directory it ran in and its environment: the supervisor answers the whole command
 * (src/api/quickAnswer.ts).
 */
export const QuickRequest = Schema.Struct({
  argv: Schema.Array(Schema.String),
  cwd: Schema.String,
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
})
/** What the command prints on stdout and on stderr, and its exit status, in this order of keys. */
export const QuickAnswer = Schema.Struct({
  exit: Schema.Int,
  stdout: Schema.String,
  stderr: Schema.String,
}).annotations({ identifier: "QuickAnswer" })

/**
 * `supervisor start` asked of the supervisor by the quick client (src/quick/start.ts): the
 * supervisor loads the configuration seen from the CLI's directory with the CLI's environment,
 * selects the daemons as the CLI would, and starts them.
 */
export const StartFromRequest = Schema.Struct({
  /** The CLI's version: another one gets `fallback`. */
  version: Schema.String,
  cwd: Schema.String,
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  ids: Schema.Array(Schema.String),
  all: Schema.Boolean,
  group: Schema.NullOr(Schema.String),
  force: Schema.Boolean,
  /** The progress the CLI shows: none (`--quiet`, `--json`), lines (stderr is not a terminal), or a spinner. */
  progress: Schema.Literal("none", "lines", "spinner"),
})

/** `POST /api/cli/start`: daemons to start with their definitions, as the CLI resolved them. */
export const StartRequest = Schema.Struct({
  definitions: Schema.Array(DaemonDefinition),
  /** What the requested daemons depend on (transitively); started first, never forced. */
  dependencies: Schema.optionalWith(Schema.Array(DaemonDefinition), { default: () => [] }),
  force: Schema.Boolean,
})

/** Operations of the CLI beyond the spec's routes: same API, another group. */
export class CliGroup extends HttpApiGroup.make("cli")
  .add(
    HttpApiEndpoint.post("start", "/start").setPayload(StartRequest).addSuccess(Schema.Array(StartOutcome)),
  )
  .add(
    /**
     * The same start as ndjson events (src/api/startEvents.ts): `{ waiting }` per daemon once it
     * is spawned, `{ outcome }` as soon as it is settled, then `{ outcomes }`: what the CLI's
     * spinner and transcript show.
     */
    HttpApiEndpoint.post("startStream", "/start/stream")
      .setPayload(StartRequest)
      .addSuccess(
        ndjsonBody(StartEvent, "ndjson, a StartEvent per line: the start's progress, all outcomes last"),
      ),
  )
  .add(
    HttpApiEndpoint.post("stop", "/stop")
      .setPayload(Schema.Struct({ ids: Schema.Array(Schema.String) }))
      .addSuccess(StopResults)
      .addError(DaemonNotFound, { status: 404 }),
  )
  .add(
    HttpApiEndpoint.post("wait", "/wait")
      .setPayload(Schema.Struct({ id: Schema.String }))
      .addSuccess(WaitResult)
      .addError(DaemonNotFound, { status: 404 }),
  )
  .add(
    /** Forgets the stopped daemons among `ids` and of `namespaces`; every stopped one without either. */
    HttpApiEndpoint.post("clean", "/clean")
      .setPayload(
        Schema.Struct({
          ids: Schema.optional(Schema.Array(Schema.String)),
          namespaces: Schema.optional(Schema.Array(Schema.String)),
        }),
      )
      .addSuccess(CleanResult),
  )
  .add(HttpApiEndpoint.post("logs", "/logs").setPayload(LogsQuery).addSuccess(Schema.Array(LogEntry)))
  .add(
    /** The same selection as `logs`, streamed as ndjson (one entry per line): `logs -n 1000000`. */
    HttpApiEndpoint.post("logsStream", "/logs/stream")
      .setPayload(LogsQuery)
      .addSuccess(ndjsonBody(LogEntry, "ndjson, a LogEntry per line: the selected entries, oldest first")),
  )
  .add(
    /**
     * `logs ID -n N` as plain text (`logs --no-timestamp`, or with timestamps and no colours): each
     * stored line once, in order, as `logs` prints it, streamed as the store reads it.
     */
    HttpApiEndpoint.post("logsText", "/logs/text").setPayload(LogsTextQuery).addSuccess(LogText),
  )
  .add(
    /** The same with the ID as typed, resolved from the CLI's directory; 409 `Fallback` otherwise. */
    HttpApiEndpoint.post("logsTextFrom", "/logs/text-from")
      .setPayload(LogsTextFromRequest)
      .addSuccess(LogText)
      .addError(Fallback, { status: 409 }),
  )
  .add(
    /**
     * `logs --tail`: the same selection (but `until`), then every new entry of the daemons, as
     * ndjson entries and `{ _clear, _gen }` notices, until the client leaves.
     */
    HttpApiEndpoint.post("logsFollow", "/logs/follow")
      .setPayload(LogsQuery)
      .addSuccess(
        ndjsonBody(
          LogStreamItem,
          "ndjson, a LogStreamItem per line: the selected entries, then each new one",
        ),
      ),
  )
  .add(
    HttpApiEndpoint.post("clearLogs", "/logs/clear")
      .setPayload(Schema.Struct({ ids: Schema.Array(Schema.String) }))
      .addSuccess(LogsCleared),
  )
  .add(
    HttpApiEndpoint.post("definition", "/definition")
      .setPayload(Schema.Struct({ id: Schema.String }))
      .addSuccess(DaemonDefinition)
      .addError(DaemonNotFound, { status: 404 }),
  )
  .add(
    HttpApiEndpoint.post("toggle", "/toggle")
      .setPayload(Schema.Struct({ definitions: Schema.Array(DaemonDefinition), enabled: Schema.Boolean }))
      .addSuccess(Schema.Struct({ ok: Schema.Boolean })),
  )
  .add(
    HttpApiEndpoint.get("disabled", "/disabled").addSuccess(
      Schema.Struct({ ids: Schema.Array(Schema.String) }),
    ),
  )
  .add(
    HttpApiEndpoint.get("info", "/supervisor")
      /** The CLI's directory: its project's daemons become known (they can be started by ID over the API). */
      .setUrlParams(Schema.Struct({ cwd: Schema.optional(Schema.String) }))
      .addSuccess(SupervisorInfo),
  )
  .add(HttpApiEndpoint.post("listFrom", "/list").setPayload(ListRequest).addSuccess(ListAnswer))
  .add(
    /**
     * `list --json`, the simple forms of `stop` and those of `start` with `--quiet` or `--json`,
     * answered whole: the native quick client prints the answer and exits with its status. 409 `Fallback` (nothing done) for anything else, and
     * when the client's version (x-supervisor-version) is not the supervisor's.
     */
    HttpApiEndpoint.post("quick", "/quick")
      .setPayload(QuickRequest)
      .addSuccess(QuickAnswer)
      .addError(Fallback, { status: 409 }),
  )
  .add(
    /**
     * ndjson: `{"fallback":true}` alone (anything the full CLI must handle: another version,
     * configuration warnings or errors, an ID it cannot resolve, a spinner to draw), or
     * `{"waiting":[{id,what}]}` and then, once every daemon is ready or failed, `{"outcomes":[...]}`.
     */
    HttpApiEndpoint.post("startFrom", "/start-from")
      .setPayload(StartFromRequest)
      .addSuccess(
        ndjsonBody(
          StartFromEvent,
          "ndjson, a StartFromEvent per line: fallback alone, or the start's events",
        ),
      ),
  )
  .add(
    HttpApiEndpoint.post("shutdown", "/supervisor/stop")
      // keep_daemons=true: exit leaving the daemons running (`supervisor supervisor start --force`)
      .setUrlParams(Schema.Struct({ keep_daemons: Schema.optional(Schema.Literal("true", "false")) }))
      .addSuccess(Schema.Struct({ ok: Schema.Boolean })),
  )
  .add(
    HttpApiEndpoint.post("webLogin", "/web/login").addSuccess(
      /** A one-time login URL of the web UI; null when the web UI is off. */
      Schema.Struct({ url: Schema.NullOr(Schema.String) }),
    ),
  )
  .prefix("/api/cli") {}

export class Api extends HttpApi.make("supervisor")
  .add(DaemonsGroup)
  .add(CommandsGroup)
  .add(CliGroup)
  .add(PresenceGroup) {}
