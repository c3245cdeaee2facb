import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../domain/DaemonStatus.js"
import type { ProcessHandle } from "../process/ProcessService.js"

/** A retry the daemon waits for: retry `retry` of `limit` (Infinity: unlimited), due at `dueAt` (epoch ms). */
export interface NextRetry {
  readonly retry: number
  readonly limit: number
  readonly dueAt: number
}

/** The live state of one daemon the supervisor knows. */
export interface DaemonState {
  readonly def: DaemonDefinition
  readonly status: DaemonStatus
  readonly pid: number | null
  readonly startTime: string | null
  /** Epoch ms of the last spawn (or adoption). */
  readonly startedAt: number | null
  readonly retryCount: number
  /** It failed and waits for its next retry (its status stays `errored` meanwhile). */
  readonly retryPending: boolean
  /** The pending retry (while `retryPending`, once its delay is known): `list` shows it. */
  readonly nextRetry: NextRetry | null
  readonly handle: ProcessHandle | null
  /** The ports of the latest run (`port.expect`, shifted by a bump); empty without `port`. */
  readonly ports: ReadonlyArray<number>
  /** Runs this supervisor spawned or adopted (GET /metrics counts restarts from it); 0 when absent. */
  readonly spawns?: number
  /** Epoch ms at which the latest run passed its readiness check; null or absent until it did. */
  readonly readyAt?: number | null
}

export { isActive } from "../domain/DaemonStatus.js"

export const initialState = (def: DaemonDefinition): DaemonState => ({
  def,
  status: { type: "available" },
  pid: null,
  startTime: null,
  startedAt: null,
  retryCount: 0,
  retryPending: false,
  nextRetry: null,
  handle: null,
  ports: [],
})
