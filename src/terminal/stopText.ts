// What `supervisor stop` prints about each daemon, without Effect: the CLI (cli/actions/daemons.ts,
// up.ts) and the quick client (src/quick/stop.ts) print the same lines.
import type { StopResult } from "../domain/CliOutput.js"
import { cyan, dim, green } from "./style.js"

/** The line of one stop result. */
export const stopLine = (r: StopResult): string =>
  !r.was_running
    ? `${dim("•")} ${cyan(r.id)} was not running`
    : r.killed
      ? `${green("✓")} ${cyan(r.id)} stopped ${dim(`(killed with SIGKILL: it did not exit on its stop signal within daemons.${r.id.slice(r.id.indexOf("/") + 1)}.stop_signal.timeout, or settings.supervisor.stop_timeout when unset)`)}`
      : `${green("✓")} ${cyan(r.id)} stopped`

/** What `stop` says when the selection had nothing running. */
export const NOTHING_TO_STOP = "no daemon is running: nothing to stop"
