import { Effect, Option, Stream } from "effect"
import { stripAnsi } from "../../logs/ansi.js"

/**
 * `ready_output`: ready on the first line (stdout and stderr alike, ANSI escapes stripped) that
 * matches `regex`. `lines` must start at the run's first line, so that a line printed right
 * after the spawn counts. A stream that ends or fails never makes the daemon ready.
 */
export const waitForOutput = <E, R>(
  lines: Stream.Stream<string, E, R>,
  regex: RegExp,
): Effect.Effect<void, never, R> =>
  lines.pipe(
    Stream.map(stripAnsi),
    Stream.filter((line) => regex.test(line)),
    Stream.runHead,
    Effect.catchAllCause((cause) =>
      Effect.logWarning("ready_output: the output stream failed", cause).pipe(
        Effect.as(Option.none<string>()),
      ),
    ),
    Effect.flatMap(Option.match({ onNone: () => Effect.never, onSome: () => Effect.void })),
  )
