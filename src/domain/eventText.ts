import type { EventStreamItem } from "./SupervisorEvent.js"

/** What happened, in words (after the time and the daemon): `waiting → running (ready), pid 4242`. */
export const eventText = (e: EventStreamItem): string => {
  switch (e._tag) {
    case "DaemonStateChanged": {
      const facts = [
        e.pid === null ? undefined : `pid ${e.pid}`,
        e.exit_code === null ? undefined : `exit code ${e.exit_code}`,
        e.signal === null ? undefined : `signal ${e.signal}`,
        e.message === null ? undefined : e.message,
      ].filter((f) => f !== undefined)
      return `${e.from} → ${e.to} (${e.reason})${facts.length > 0 ? `, ${facts.join(", ")}` : ""}`
    }
    case "ReadinessPassed":
      return `ready: its ${e.check} check passed, pid ${e.pid}`
    case "ReadinessFailed":
      return `not ready: ${e.message}${e.output.length > 0 ? `; last output: ${e.output.slice(-3).join(" | ")}` : ""}`
    case "RetryScheduled":
      return `retry ${e.attempt}${e.limit === null ? "" : ` of ${e.limit}`} at ${new Date(e.due_at).toISOString()}: ${e.message}`
    case "DaemonFailed":
      return `failed for good: ${e.message}`
    case "AutomationAction":
      return `${e.source}: ${e.action} (${e.detail})`
    case "ConfigReloaded":
      return `configuration of ${e.dir} reloaded`
    case "ConfigInvalid":
      return `invalid configuration: ${e.file}${e.line === null ? "" : `:${e.line}`}${e.key === null ? "" : `: ${e.key}`}: ${e.message}`
    case "StorageProblem":
      return `storage (${e.area}): cannot ${e.operation} ${e.file} (${e.code}): ${e.message}`
    case "StorageRecovered":
      return `storage (${e.area}): ${e.message}`
    case "EventsDropped":
      return `${e.count} event${e.count === 1 ? "" : "s"} dropped (seq ${e.first} to ${e.last}): the reader fell behind, or they are no longer retained`
  }
}
