// Whether a start went well, by its outcome alone. No Effect here (dist/quick.cjs imports it).
import type { StartOutcome } from "./StartOutcome.js"

/** Ready, already running, or a one-shot task that completed: the daemon's dependents may start. */
export const succeeded = (o: { readonly _tag: StartOutcome["_tag"] }): boolean =>
  o._tag === "Ready" || o._tag === "AlreadyRunning" || o._tag === "Completed"
