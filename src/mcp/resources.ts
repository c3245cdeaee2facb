import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { LogEntry } from "../domain/LogEntry.js"
import type { McpDefinition } from "./definition.js"

/**
 * Each daemon's recent log as an MCP resource, `supervisor://logs/ID` (its last 200 lines as
 * text): the project's daemons are listed from the API's listing; any daemon's is read with
 * the logs query of the API.
 */

export const LOG_URI = "supervisor://logs/"
export const RESOURCE_LINES = 200

/** A daemon's state in words: `running, pid 4242`, `errored: exited with code 1`, `stopped: signal SIGKILL`. */
export const stateWords = (d: Pick<ApiDaemonEntry, "status" | "pid">): string => {
  const s = d.status
  const detail =
    s.message ??
    (s.exit_code != null ? `exit code ${s.exit_code}` : s.signal != null ? `signal ${s.signal}` : undefined)
  const head = [s.type, ...(d.pid === null ? [] : [`pid ${d.pid}`])].join(", ")
  return detail === undefined ? head : `${head}: ${detail}`
}

/** What the resources read of the supervisor (src/mcp/operations.ts); failures reject with their message. */
export interface ResourceSource {
  /** The daemons of the project the server was started in. */
  readonly list: () => Promise<ReadonlyArray<ApiDaemonEntry>>
  /** A daemon's last `lines` log entries (its ID resolved as the CLI resolves it). */
  readonly logs: (id: string, lines: number) => Promise<ReadonlyArray<LogEntry>>
}

export const logResources = (source: ResourceSource): McpDefinition["resources"] => ({
  list: async () =>
    (await source.list()).map((d) => ({
      uri: `${LOG_URI}${d.id.qualified}`,
      name: d.id.qualified,
      title: `log of ${d.id.qualified}`,
      description: `the last ${RESOURCE_LINES} lines of the log of ${d.id.qualified} (${stateWords(d)})`,
      mimeType: "text/plain",
    })),
  read: async (uri) => {
    if (!uri.startsWith(LOG_URI))
      throw new Error(`unknown resource ${uri}: the resources are ${LOG_URI}ID (see resources/list)`)
    const id = decodeURIComponent(uri.slice(LOG_URI.length))
    if (id === "" || id.startsWith("-")) throw new Error(`${uri} names no daemon: write ${LOG_URI}ID`)
    const lines = await source.logs(id, RESOURCE_LINES)
    return {
      uri,
      mimeType: "text/plain",
      text: lines.map((l) => `${l.timestamp} ${l.message}\n`).join(""),
    }
  },
})
