import { Context, type Deferred } from "effect"

/** Facts about the running supervisor process, for `supervisor supervisor status`. */
export interface HostInfoShape {
  readonly version: string
  readonly startedAt: number
  readonly stateDir: string
  readonly socket: string
  readonly webUrl: string | null
  /** Completed to ask the supervisor to stop every daemon and exit. */
  readonly shutdown: Deferred.Deferred<void>
}
export class HostInfo extends Context.Tag("supervisor/HostInfo")<HostInfo, HostInfoShape>() {}
