import type { DaemonDefinition } from "../domain/DaemonDefinition.js"

/** What a start starts: the requested daemons, and the dependencies they need that may not run yet. */
export interface StartPlan {
  readonly requested: ReadonlyArray<DaemonDefinition>
  /** Started first when they do not run, never forced. */
  readonly dependencies: ReadonlyArray<DaemonDefinition>
  /** Restart the requested daemons that run already. */
  readonly force: boolean
  /** What a restart's log line adds after its reason (`app/db restarted`). */
  readonly detail?: string | undefined
}

/** How `stop` ended for one daemon. */
export interface StopResult {
  readonly id: string
  readonly was_running: boolean
  /** It outlived its stop signal's timeout and was killed with SIGKILL. */
  readonly killed: boolean
}
