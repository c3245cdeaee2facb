// The spinner of `supervisor start` on a terminal, without Effect: the CLI (progress.ts) and the
// quick client (src/quick/start.ts) draw the same lines from the same start events.
import { succeeded } from "../domain/outcomeKind.js"
import type { StartProgress, Waiting } from "../domain/StartEvent.js"

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

export interface Spinner {
  /** What a daemon waits for now (added when new), or that it is settled. */
  readonly update: (event: StartProgress) => void
  /** Stops drawing and erases the lines, for the outcome lines to follow. */
  readonly stop: () => void
}

/**
 * Draws a line per daemon on stderr every 80 ms: a spinner and what it waits for, then
 * `✓ ID ready` (or `✗ ID did not start`) once it is settled.
 */
export const startSpinner = (waiting: ReadonlyArray<Waiting>): Spinner => {
  const lines = new Map<string, { what: string; mark?: string }>(waiting.map((w) => [w.id, { what: w.what }]))
  let drawn = 0
  let frame = 0
  const width = () => Math.max(20, (process.stderr.columns || 80) - 1)
  const clip = (s: string) => (s.length > width() ? `${s.slice(0, width() - 1)}…` : s)
  const draw = () => {
    let out = drawn > 0 ? `\x1b[${drawn}A` : ""
    for (const [id, l] of lines) {
      const line = l.mark ?? `${FRAMES[frame % FRAMES.length]} ${id} waiting for ${l.what}`
      out += `\r\x1b[2K${clip(line)}\n`
    }
    frame++
    drawn = lines.size
    process.stderr.write(out)
  }
  draw()
  const timer = setInterval(draw, 80)
  return {
    update: (event) => {
      if ("waiting" in event) for (const w of event.waiting) lines.set(w.id, { what: w.what })
      else {
        const o = event.outcome
        const known = lines.get(o.id)
        if (known !== undefined) known.mark = succeeded(o) ? `✓ ${o.id} ready` : `✗ ${o.id} did not start`
      }
    },
    stop: () => {
      clearInterval(timer)
      if (drawn > 0) process.stderr.write(`\x1b[${drawn}A\x1b[0J`)
      drawn = 0
    },
  }
}
