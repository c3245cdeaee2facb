import { Clock, Duration, Effect, Stream } from "effect"
import { stripAnsi } from "../../logs/ansi.js"

/** The decoded `hooks.on_output` table. */
export interface OnOutputSpec {
  readonly run: string
  readonly filter?: string | undefined
  readonly regex?: string | undefined
  readonly debounce?: Duration.Duration | undefined
}

export const DEFAULT_OUTPUT_DEBOUNCE = Duration.seconds(1)

/** Whether an output line (ANSI escapes stripped) fires the hook: every line without a filter. */
export const outputMatcher = (spec: OnOutputSpec): ((line: string) => boolean) => {
  if (spec.filter !== undefined) {
    const filter = spec.filter
    return (line) => line.includes(filter)
  }
  if (spec.regex !== undefined) {
    const re = new RegExp(spec.regex)
    return (line) => re.test(line)
  }
  return () => true
}

/**
 * Fires `fire(line)` for matching lines, at most once per debounce window, on the leading edge:
 * the first match fires at once, further matches within the window after it are dropped, and
 * the next match after the window fires again. Runs until `lines` ends (or is interrupted).
 */
export const watchOutput = (
  spec: OnOutputSpec,
  lines: Stream.Stream<string>,
  fire: (line: string) => Effect.Effect<void>,
): Effect.Effect<void> => {
  const matches = outputMatcher(spec)
  const window = Duration.toMillis(spec.debounce ?? DEFAULT_OUTPUT_DEBOUNCE)
  let last = Number.NEGATIVE_INFINITY
  return lines.pipe(
    Stream.map(stripAnsi),
    Stream.filter(matches),
    Stream.runForEach((line) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (now - last < window) return
        last = now
        yield* fire(line)
      }),
    ),
  )
}
