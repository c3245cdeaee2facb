// `supervisor list --json` without the CLI bundle: the launcher (scripts/launcher.cjs) asks the
// running supervisor, which loads the configuration seen from here and merges the listing
// (POST /api/cli/list). Anything unusual (no supervisor, another version, configuration
// warnings, an error) resolves false and the full CLI answers, exactly as before. Bundled
// alone into dist/quick.cjs: no Effect here, that is the point (docs/benchmarks.md).
import * as http from "node:http"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { collationKey } from "../domain/collation.js"
import { stateDir, statePaths } from "../state/paths.js"
import { VERSION } from "../version.js"

interface Answer {
  readonly version: string
  readonly entries: Array<ApiDaemonEntry> | null
  readonly sorted: boolean
}

const isAnswer = (value: unknown): value is Answer =>
  typeof value === "object" &&
  value !== null &&
  "version" in value &&
  "entries" in value &&
  (value.entries === null || Array.isArray(value.entries))

/** Prints the listing and resolves true, or resolves false (nothing printed) for the CLI to answer. */
export const quickList = (): Promise<boolean> =>
  new Promise((resolve) => {
    const body = JSON.stringify({
      cwd: process.cwd(),
      env: process.env,
      collation: collationKey(process.env),
    })
    const request = http.request(
      {
        socketPath: statePaths(stateDir(process.env)).socket,
        path: "/api/cli/list",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", () => resolve(false))
        response.on("end", () => {
          let answer: unknown
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            return resolve(false)
          }
          if (response.statusCode !== 200 || !isAnswer(answer)) return resolve(false)
          if (answer.version !== VERSION || answer.entries === null) return resolve(false)
          // The order must be this process's collation's, as in the CLI (collation.ts).
          const entries = answer.sorted
            ? answer.entries
            : answer.entries.sort((a, b) => a.id.qualified.localeCompare(b.id.qualified))
          process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`)
          resolve(true)
        })
      },
    )
    request.on("error", () => resolve(false))
    request.end(body)
  })
