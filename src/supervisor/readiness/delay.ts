import { Duration, Effect } from "effect"

/** `ready_delay`: ready once `seconds` have passed (on the Clock, so TestClock drives it). */
export const waitDelay = (seconds: number): Effect.Effect<void> =>
  Effect.sleep(Duration.millis(Math.round(seconds * 1000)))
