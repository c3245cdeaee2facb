import { Either, Schema } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { DaemonList, LogLines } from "../domain/CliOutput.js"
import type { Captured } from "./capture.js"
import type { McpDefinition } from "./definition.js"

/**
 * Each daemon's recent log as an MCP resource, `supervisor://logs/ID` (its last 200 lines as
 * text): the project's daemons are listed from `supervisor list --namespace NS`; any daemon's
 * is read with `supervisor logs ID -n 200`.
 */

export const LOG_URI = "supervisor://logs/"
export const RESOURCE_LINES = 200

const decode = <A, I>(schema: Schema.Schema<A, I>, c: Captured, what: string): A => {
  const decoded = Schema.decodeUnknownEither(Schema.parseJson(schema))(c.stdout)
  if (Either.isRight(decoded)) return decoded.right
  throw new Error(c.stderr.trim() || `supervisor ${what} failed with exit status ${c.exitCode}`)
}

/** A daemon's state in words: `running, pid 4242`, `errored: exited with code 1`, `stopped: signal SIGKILL`. */
export const stateWords = (d: Pick<ApiDaemonEntry, "status" | "pid">): string => {
  const s = d.status
  const detail =
    s.message ??
    (s.exit_code != null ? `exit code ${s.exit_code}` : s.signal != null ? `signal ${s.signal}` : undefined)
  const head = [s.type, ...(d.pid === null ? [] : [`pid ${d.pid}`])].join(", ")
  return detail === undefined ? head : `${head}: ${detail}`
}

/**
 * `run` runs a CLI command with `--json` (src/mcp/index.ts); `namespace` says which project's
 * daemons are listed: the one the server was started in.
 */
export const logResources = (
  run: (args: ReadonlyArray<string>) => Promise<Captured>,
  namespace: () => Promise<string>,
): McpDefinition["resources"] => ({
  list: async () =>
    decode(DaemonList, await run(["list", "--namespace", await namespace()]), "list").map((d) => ({
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
    const lines = decode(LogLines, await run(["logs", id, "-n", String(RESOURCE_LINES)]), "logs")
    return {
      uri,
      mimeType: "text/plain",
      text: lines.map((l) => `${l.timestamp} ${l.message}\n`).join(""),
    }
  },
})
