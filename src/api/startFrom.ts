// `POST /api/cli/start-from`: the quick client's start (src/quick/start.ts), an alias of the
// Start command from the CLI's directory (src/domain/Command.ts), which Control selects and plans
// as the CLI would. Whatever the full CLI would print other than progress and outcomes (another
// version, configuration warnings, an error) is left to it: the answer is then `fallback`, given
// before any daemon is started.
import { Effect, Either, Schema, Stream } from "effect"
import type { ControlShape } from "../control/Control.js"
import { Start } from "../domain/Command.js"
import { StartFromEvent } from "../domain/StartEvent.js"
import { StartFromRequest } from "./Api.js"
import { startProgress } from "./commandHandlers.js"
import { ndjsonLines, ndjsonResponse } from "./ndjson.js"
import { problem } from "./problem.js"

const decode = Schema.decodeUnknown(StartFromRequest)
/** One line of the answer, encoded through the StartFromEvent schema (src/domain/StartEvent.ts). */
const line = ndjsonLines(StartFromEvent)
const fallback = ndjsonResponse(Stream.make(line({ fallback: true })))

/** The raw handler: decodes the request, then answers `fallback` or streams the start. */
export const startFrom =
  (control: ControlShape, version: string) => (body: Effect.Effect<unknown, unknown>) =>
    Effect.gen(function* () {
      const request = yield* body.pipe(Effect.flatMap(decode), Effect.either)
      if (Either.isLeft(request)) return problem(400, "BadRequest", "malformed start-from request")
      const r = request.right
      if (r.version !== version) return fallback
      const command = new Start({
        selection: {
          ids: r.ids,
          all: r.all,
          ...(r.group === null ? {} : { group: r.group }),
          from: { _tag: "Directory", cwd: r.cwd, env: r.env, strict: true },
        },
        force: r.force,
        reason: "cli",
        // events in every case: the first line (the waiting list) says at once that the start is
        // under way; a transcript or a spinner hears each event, otherwise only the outcomes count
        wait: "events",
      })
      const started = yield* startProgress(control, command)
      if (Either.isLeft(started)) return fallback
      // the waiting list is what a spinner starts from; for the others, the first line only says
      // that the start is under way
      const events =
        r.progress === "spinner"
          ? started.right
          : started.right.pipe(Stream.mapAccum(true, (first, e) => [false, first ? { waiting: [] } : e]))
      return ndjsonResponse(events.pipe(Stream.map(line)))
    })
