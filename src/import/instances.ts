// PM2's `instances` and process-compose's `replicas` as `instances` (docs/replicas.md).
import * as os from "node:os"
import { MAX_INSTANCES } from "../domain/Instances.js"
import type { Collector } from "./model.js"

/** A count within 1 to MAX_INSTANCES, or undefined (with a warning) when it is not one. */
const bounded = (n: number, key: string, c: Collector): number | undefined => {
  if (!Number.isInteger(n) || n < 1) {
    c.warn(key, `${n}: not a count of processes from 1 to ${MAX_INSTANCES}: not imported (one process)`)
    return undefined
  }
  if (n > MAX_INSTANCES) {
    c.warn(
      key,
      `${n}: more than ${MAX_INSTANCES}, the most instances a daemon runs: imported as ${MAX_INSTANCES}`,
    )
    return MAX_INSTANCES
  }
  return n
}

/**
 * PM2's `instances`: a number, or `"max"`/0 (a process per CPU) and -1 (one less), which are
 * counted on this machine (with a warning). 1 and none are one process: no `instances` key.
 */
export const pm2Instances = (value: unknown, key: string, c: Collector): number | undefined => {
  if (value === undefined) return undefined
  const cpus = os.availableParallelism?.() ?? os.cpus().length
  const perCpu =
    value === "max" || value === 0 || value === "0"
      ? cpus
      : value === -1 || value === "-1"
        ? cpus - 1
        : undefined
  if (perCpu !== undefined) {
    c.warn(
      key,
      `${JSON.stringify(value)}: counted on this machine: instances = ${Math.max(1, perCpu)} (edit it for another)`,
    )
    return bounded(Math.max(1, perCpu), key, c)
  }
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value
  if (typeof n !== "number") {
    c.warn(key, `${JSON.stringify(value)}: not a number of processes: not imported (one process)`)
    return undefined
  }
  return bounded(n, key, c)
}

/** process-compose's `replicas`; its replicas read PC_REPLICA_NUM (0-based), which is not set here. */
export const composeReplicas = (
  value: unknown,
  command: string,
  key: string,
  c: Collector,
): number | undefined => {
  if (command.includes("PC_REPLICA_NUM"))
    c.warn(
      key.replace(/replicas$/, "command"),
      "uses PC_REPLICA_NUM, which is not set: write {{ daemon.instance }} (1 to N), or use PORT (each instance has its own)",
    )
  if (value === undefined) return undefined
  if (typeof value !== "number") {
    c.warn(key, `${JSON.stringify(value)}: not a number of processes: not imported (one process)`)
    return undefined
  }
  return bounded(value, key, c)
}
