import { isLogClear, type LogStreamItem } from "../domain/LogEntry.js"
import { stripAnsi } from "../logs/ansi.js"

/** One line of the log pane. */
export interface LogLine {
  readonly text: string
  /** The `-- logs cleared --` marker of a clear. */
  readonly clear: boolean
}

/** The most lines the pane keeps: older ones are dropped (the full log is `supervisor logs`). */
export const MAX_LOG_LINES = 500

/** `HH:MM:SS message`, without colours or control characters that would break the layout. */
export const logText = (item: LogStreamItem): LogLine =>
  isLogClear(item)
    ? { text: "-- logs cleared --", clear: true }
    : {
        text: `${item.timestamp.slice(11)} ${stripAnsi(item.message)
          .replace(/\t/g, "  ")
          .replace(/[\x00-\x1f\x7f]/g, "")}`,
        clear: false,
      }

/** `lines` with `items` appended, at most `max` of them (the newest). */
export const appendLog = (
  lines: ReadonlyArray<LogLine>,
  items: ReadonlyArray<LogStreamItem>,
  max = MAX_LOG_LINES,
): ReadonlyArray<LogLine> => {
  const next = [...lines, ...items.map(logText)]
  return next.length > max ? next.slice(next.length - max) : next
}
