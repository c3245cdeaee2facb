import { Schema } from "effect"

/** One sample of a daemon's process tree (docs/web.md, "Usage history"). */
export const UsageSample = Schema.Struct({
  /** When it was taken, in epoch milliseconds. */
  at: Schema.Number,
  /** CPU of the tree since the previous sample, in percent of one core (one decimal). */
  cpu_percent: Schema.Number,
  /** Resident memory of the tree, in bytes. */
  memory_bytes: Schema.Number,
}).annotations({ identifier: "UsageSample" })
export type UsageSample = typeof UsageSample.Type

/** The recent samples of one daemon, oldest first. */
export const DaemonUsageHistory = Schema.Struct({
  id: Schema.String,
  samples: Schema.Array(UsageSample),
}).annotations({ identifier: "DaemonUsageHistory" })
export type DaemonUsageHistory = typeof DaemonUsageHistory.Type

/** `GET /api/usage`: the recent CPU and memory samples of every daemon that ran since the supervisor started. */
export const UsageHistoryResponse = Schema.Struct({
  /** Milliseconds between two samples. */
  interval_ms: Schema.Int,
  /** How many samples each daemon keeps at most (the oldest goes first). */
  capacity: Schema.Int,
  daemons: Schema.Array(DaemonUsageHistory),
}).annotations({ identifier: "UsageHistoryResponse" })
export type UsageHistoryResponse = typeof UsageHistoryResponse.Type
