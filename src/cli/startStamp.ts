import { formatTimestamp } from "../domain/timestampFormat.js"
import { dim } from "../terminal/style.js"

/** `HH:MM:SS` of now, local time. */
export const clockTime = (now = new Date()): string => formatTimestamp("%T", now.getTime())

/**
 * `settings.general.startup_log_timestamps`: with it, a line a start prints about a daemon gets
 * the time it is printed in front (dimmed), as pitchfork's; without it, the line is unchanged.
 */
export const startStamp =
  (timestamps: boolean) =>
  (text: string): string =>
    timestamps ? `${dim(clockTime())} ${text}` : text
