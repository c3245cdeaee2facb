// How a supervisor in container mode prints a daemon's line on its stdout: `web | line`, or one
// JSON object (ContainerLogLine) per line with `--log-format json`.
import { type ContainerLogFormat, ContainerLogLine } from "../../domain/ContainerLogLine.js"
import { jsonEncoder } from "../../domain/jsonEncoding.js"
import { type LogEntry, logTimeRfc3339 } from "../../domain/LogEntry.js"

/**
 * The names daemons are shown by: each its own name (`web`), or its qualified ID (`app/web`)
 * while daemons of two namespaces share that name.
 */
export const makeLabels = () => {
  const namespaces = new Map<string, Set<string>>()
  const split = (id: string) => {
    const slash = id.indexOf("/")
    return slash === -1
      ? { namespace: "", name: id }
      : { namespace: id.slice(0, slash), name: id.slice(slash + 1) }
  }
  return {
    /** A daemon whose lines are printed from now on. */
    add: (id: string) => {
      const { namespace, name } = split(id)
      const known = namespaces.get(name)
      if (known === undefined) namespaces.set(name, new Set([namespace]))
      else known.add(namespace)
    },
    of: (id: string): string => {
      const { name } = split(id)
      return (namespaces.get(name)?.size ?? 0) > 1 ? id : name
    },
  }
}

const encodeLine = jsonEncoder(ContainerLogLine)

/** RFC 3339 in UTC of a log entry's `YYYY-MM-DD HH:MM:SS` (local time), else the text as it is. */
const rfc3339 = (timestamp: string): string => logTimeRfc3339(timestamp) ?? timestamp

/** The text of one entry on stdout, its newline included. */
export const renderLine = (format: ContainerLogFormat, label: string, e: LogEntry): string =>
  format === "json"
    ? `${encodeLine({
        daemon: e.daemon_id,
        name: label,
        time: rfc3339(e.timestamp),
        message: e.message,
        ...(e.level === undefined ? {} : { level: e.level }),
        ...(e.fields === undefined ? {} : { fields: e.fields }),
      })}\n`
    : `${label} | ${e.message}\n`
