import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../domain/DaemonStatus.js"
import type { ProcessHandle } from "../process/ProcessService.js"

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
  readonly handle: ProcessHandle | null
  /** The ports of the latest run (`port.expect`, shifted by a bump); empty without `port`. */
  readonly ports: ReadonlyArray<number>
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
  handle: null,
  ports: [],
})
