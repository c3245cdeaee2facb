import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { Waiting } from "../domain/StartEvent.js"

/** What a start starts: the requested daemons, and the dependencies they need that may not run yet. */
export interface StartPlan {
  readonly requested: ReadonlyArray<DaemonDefinition>
  /** Started first when they do not run, never forced. */
  readonly dependencies: ReadonlyArray<DaemonDefinition>
  /** Restart the requested daemons that run already. */
  readonly force: boolean
}

/** A start the supervisor plans itself (the quick client's), with what a spinner waits for first. */
export interface PlannedStart extends StartPlan {
  readonly waiting: ReadonlyArray<Waiting>
}

/** `supervisor start` as the quick client asks it: its directory, environment and arguments. */
export interface StartFrom {
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: string | null
  readonly force: boolean
  /** A spinner starts from the waiting list; the others hear the daemons one by one. */
  readonly spinner: boolean
}

/** How `stop` ended for one daemon. */
export interface StopResult {
  readonly id: string
  readonly was_running: boolean
  /** It outlived its stop signal's timeout and was killed with SIGKILL. */
  readonly killed: boolean
}
