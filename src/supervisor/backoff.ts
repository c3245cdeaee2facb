import { Duration } from "effect"

/** Delay before retry number `attempt` (1-based): 1 s, 2 s, 4 s ... capped at 60 s. */
export const BACKOFF_BASE = Duration.seconds(1)
export const BACKOFF_CAP = Duration.seconds(60)
export const retryDelay = (attempt: number): Duration.Duration =>
  Duration.min(Duration.times(BACKOFF_BASE, 2 ** Math.max(0, attempt - 1)), BACKOFF_CAP)
