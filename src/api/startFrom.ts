// `POST /api/cli/start-from`: `supervisor start` done by the supervisor for the quick client
// (src/quick/start.ts), which then needs neither the CLI bundle nor a configuration load of its
// own. Control plans it as the CLI would (`Control.planFrom`). Whatever the full CLI would print
// other than progress and outcomes (warnings, errors) is left to it: the answer is then
// `fallback`, given before any daemon is started.
import { Effect, Either, Schema, Stream } from "effect"
import type { ControlShape } from "../control/Control.js"
import { StartFromEvent } from "../domain/StartEvent.js"
import { StartFromRequest } from "./Api.js"
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
      const planned = yield* control.planFrom({ ...r, spinner: r.progress === "spinner" })
      if (planned === undefined) return fallback
      // Progress (a transcript or a spinner) hears what each daemon waits for and its outcome as
      // they come; otherwise only the last line counts.
      const started =
        r.progress !== "none"
          ? control.startEvents(planned, "cli")
          : Stream.fromEffect(control.start(planned, "cli").pipe(Effect.map((outcomes) => ({ outcomes }))))
      // The first line at once: the start is under way (and, for a spinner, what it waits for).
      return ndjsonResponse(
        Stream.concat(Stream.succeed({ waiting: planned.waiting }), started).pipe(Stream.map(line)),
      )
    })
