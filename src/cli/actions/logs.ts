import * as nodePath from "node:path"
import { HttpClientRequest } from "@effect/platform"
import { Console, Effect, Either, Option, Schema, Stream } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import type { ApiDaemonEntry } from "../../domain/ApiDaemonEntry.js"
import { LogsCleared } from "../../domain/CliOutput.js"
import { Logs, type Selection, Tail } from "../../domain/Command.js"
import { jsonEncoder } from "../../domain/jsonEncoding.js"
import { isLogClear, LogEntry, LogStreamItem, parseLogTimestamp } from "../../domain/LogEntry.js"
import { parseTimeArg } from "../../domain/timeArg.js"
import { DEFAULT_TIMESTAMP_FORMAT, formatTimestamp } from "../../domain/timestampFormat.js"
import { VERSION } from "../../domain/version.js"
import { stripAnsi } from "../../logs/ansi.js"
import { definedEnv } from "../../quick/request.js"
import type { LogsOptions } from "../args/logs.js"
import { SupervisorClient } from "../client.js"
import { commandItems, hereFrom } from "../commandStream.js"
import { cyan, dim, ExitCode, isTTY, note, printJson, red } from "../output.js"
import { isRemote } from "../remote.js"
import { handleErrors, loadHere, Reported, withClient } from "../session.js"
import { withSlugProjects } from "../slugIds.js"
import { structuredFlags } from "./logFilters.js"

export { parseTimeArg }

const decodeItem = Schema.decodeUnknownSync(LogStreamItem)
/** `--json`: an entry of the array (LogLines), indented; `--tail --json`: a line of jsonl. */
const entryJson = jsonEncoder(LogEntry, 2)
const itemJson = jsonEncoder(LogStreamItem)

/** Writes to stdout and waits until it drained (a pipe to `head` or `less` sets the pace). */
const writeOut = (text: string | Uint8Array) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

/** `JSON.stringify(x, null, 2)` of an array element: indented by two more spaces. */
const indent = (json: string) => `  ${json.replaceAll("\n", "\n  ")}`

/** `supervisor logs`: daemon logs; `--tail` follows them. */
/** Whether `typed` names a daemon with instances (its lines then come from several daemons). */
const replicated = (typed: string, known: ReadonlyArray<ApiDaemonEntry>): boolean =>
  known.some(
    (k) =>
      k.instance !== undefined && (k.instance.daemon === typed || k.instance.daemon.endsWith(`/${typed}`)),
  )

export const logs = (o: LogsOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      const since = Option.isSome(o.since) ? parseTimeArg(o.since.value) : undefined
      const until = Option.isSome(o.until) ? parseTimeArg(o.until.value) : undefined
      for (const t of [since, until])
        if (t && Either.isLeft(t)) return yield* new UsageError({ message: t.left })
      if (Option.isSome(o.lines) && o.lines.value < 0)
        return yield* new UsageError({ message: `-n must be 0 or more (got ${o.lines.value})` })
      if (since && until && Either.isRight(since) && Either.isRight(until) && since.right > until.right)
        return yield* new UsageError({
          message: `--since is after --until: nothing can be in between (${o.since.pipe(Option.getOrElse(() => ""))} > ${o.until.pipe(Option.getOrElse(() => ""))})`,
        })
      // --clear deletes whole logs: a filter would look like it limits what is deleted
      const filters = [
        ["-n", Option.isSome(o.lines)],
        ["--since", Option.isSome(o.since)],
        ["--until", Option.isSome(o.until)],
        ["--grep", o.grep.length > 0],
        ["--regex", Option.isSome(o.regex)],
        ["--level", Option.isSome(o.level)],
        ["--field", o.field.length > 0],
        ["--jq", Option.isSome(o.jq)],
        ["--tail", o.tail],
      ] as const
      const withClear = filters.filter(([, set]) => set).map(([flag]) => flag)
      if (o.clear && withClear.length > 0)
        return yield* new UsageError({
          message: `--clear deletes the whole log of each daemon named: it cannot be combined with ${withClear.join(", ")}`,
        })
      if (o.tail && Option.isSome(o.until))
        return yield* new UsageError({
          message: "--until cannot be combined with --tail: the lines it follows are always newer",
        })
      const structured = structuredFlags(o)
      if (typeof structured === "string") return yield* new UsageError({ message: structured })
      const regexText = Option.getOrUndefined(o.regex)
      // checked here for a usage error; the supervisor does the matching
      if (regexText !== undefined) {
        try {
          new RegExp(regexText)
        } catch (e) {
          return yield* new UsageError({ message: `invalid --regex: ${(e as Error).message}` })
        }
      }
      yield* withClient(
        config,
        Effect.gen(function* () {
          const c = yield* SupervisorClient
          if (o.clear) {
            const known = yield* c.api.daemons.list({ urlParams: {} }).pipe(Effect.orDie)
            const ids =
              o.ids.length > 0
                ? yield* Effect.forEach(o.ids, (id) =>
                    Effect.flatMap(withSlugProjects(config, [id]), (c) => resolveId(id, c, known)),
                  )
                : known.map((k) => k.id.qualified)
            yield* c.api.cli.clearLogs({ payload: { ids } }).pipe(Effect.orDie)
            if (o.json) return yield* printJson(LogsCleared, { cleared: ids })
            return yield* Console.log(
              `cleared the logs of ${ids.length} daemon${ids.length === 1 ? "" : "s"}`,
            )
          }
          // the supervisor selects the daemons: the IDs as typed here (short IDs, slugs), every
          // daemon it knows without any; against a URL, IDs as it knows them
          const remote = isRemote()
          const selection: Selection =
            o.ids.length === 0
              ? { ids: [], all: true }
              : remote
                ? { ids: o.ids, all: false }
                : { ids: o.ids, all: false, from: hereFrom() }
          // a line names its daemon when several are read
          const many =
            o.ids.length === 0
              ? (yield* c.api.daemons.list({ urlParams: {} }).pipe(Effect.orDie)).length > 1
              : o.ids.length > 1 ||
                replicated(o.ids[0]!, yield* c.api.daemons.list({ urlParams: {} }).pipe(Effect.orDie))
          const grep = o.grep.length === 0 ? undefined : o.grep
          // `settings.logs.timestamp` (`--no-timestamp` wins) and `settings.logs.timestamp_format`
          const timestamps = !o.noTimestamp && config.settings.logs.timestamp
          const format = config.settings.logs.timestamp_format
          const stamp = (timestamp: string) =>
            format === DEFAULT_TIMESTAMP_FORMAT
              ? timestamp
              : formatTimestamp(format, parseLogTimestamp(timestamp))
          const line = (e: LogEntry, severalDaemons: boolean) => {
            const message = o.raw ? stripAnsi(e.message) : e.message
            const prefix = [
              timestamps ? dim(stamp(e.timestamp)) : "",
              severalDaemons ? cyan(e.daemon_id) : "",
            ]
              .filter(Boolean)
              .join(" ")
            return prefix ? `${prefix} ${message}` : message
          }
          const filters = {
            ...(since && Either.isRight(since) && { since: since.right }),
            ...(until && Either.isRight(until) && { until: until.right }),
            ...(grep !== undefined && { grep }),
            ...(regexText !== undefined && { regex: regexText }),
            case_sensitive: o.caseSensitive,
            raw: o.raw,
            ...structured,
          }
          const [only] = o.ids
          const filtered =
            since ||
            until ||
            grep !== undefined ||
            regexText !== undefined ||
            Object.keys(structured).length > 0
          if (
            !remote &&
            !o.tail &&
            !o.json &&
            only !== undefined &&
            !many &&
            !filtered &&
            (!timestamps || (!isTTY() && format === DEFAULT_TIMESTAMP_FORMAT))
          ) {
            // One daemon's lines as the supervisor reads them, as text (no colours to add): copied
            // to stdout as they come, without an entry per line on either side (docs/logs.md). The
            // supervisor resolves the ID as typed here; when it leaves that to a command (a 409:
            // warnings, an ID to complain about), the Logs command below answers.
            const request = yield* HttpClientRequest.post("http://localhost/api/cli/logs/text-from").pipe(
              HttpClientRequest.bodyJson({
                version: VERSION,
                cwd: nodePath.resolve(process.cwd()),
                env: definedEnv(),
                id: only,
                lines: Option.getOrElse(o.lines, () => 100),
                raw: o.raw,
                timestamps,
              }),
            )
            const response = yield* c.http.execute(request).pipe(Effect.orDie)
            if (response.status === 200)
              return yield* response.stream.pipe(
                Stream.runForEach(writeOut),
                Effect.catchAll(() =>
                  Console.error(
                    `${red("error:")} the supervisor stopped answering before the last line`,
                  ).pipe(Effect.zipRight(Effect.fail(new Reported({ code: ExitCode.failure })))),
                ),
              )
            if (response.status !== 409)
              return yield* Effect.dieMessage(yield* response.text.pipe(Effect.orDie))
            yield* response.text.pipe(Effect.ignore)
          }
          if (!o.tail) {
            // Streamed (the Logs command with `stream`): entries are printed as they arrive, a
            // chunk at a time (`-n 1000000` neither waits for the whole answer nor holds it in
            // memory twice).
            const command = new Logs({
              selection,
              ...filters,
              lines: Option.getOrElse(o.lines, () => 100),
              stream: true,
              reason: "cli",
            })
            let first = true
            let opened = false
            yield* commandItems(c, command).pipe(
              Stream.runForEachChunk((chunk) => {
                let text = o.json && !opened ? "[" : ""
                opened = true
                for (const item of chunk) {
                  const e = item as LogEntry
                  if (o.json) {
                    text += `${first ? "\n" : ",\n"}${indent(entryJson(e))}`
                    first = false
                  } else text += `${line(e, many)}\n`
                }
                return writeOut(text)
              }),
            )
            if (o.json) yield* writeOut(`${opened ? "" : "["}${first ? "]\n" : "\n]\n"}`)
            return
          }
          // Follow (the Tail command): the supervisor merges the daemons' history by time, then
          // their new lines.
          const command = new Tail({
            selection,
            ...filters,
            lines: Option.getOrElse(o.lines, () => 10),
            reason: "cli",
          })
          yield* commandItems(c, command).pipe(
            Stream.map(decodeItem),
            Stream.runForEach((item) => {
              if (isLogClear(item))
                return writeOut(o.json ? `${itemJson(item)}\n` : `${dim("-- logs cleared --")}\n`)
              return writeOut(`${o.json ? itemJson(item) : line(item, many)}\n`)
            }),
          )
          // a follow only ends when the supervisor ends it: say so, or it looks like a hang-up
          yield* note(dim("-- the supervisor stopped; no more lines will come --"))
        }),
      )
    }),
  )
