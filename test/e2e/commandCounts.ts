// How many commands a real supervisor handled, by command and by who sent them: its /metrics
// (`supervisor_commands_total{command,source}`), read over the Unix socket. A front-end's action
// that went through the command protocol (docs/api.md, "Commands") is counted there.
import { request } from "node:http"
import { join } from "node:path"
import { parsePrometheus, sampleValue } from "../metrics/prometheus.js"

/** The text of GET `path` on the supervisor's Unix socket (no token there). */
export const socketText = (stateDir: string, path: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath: join(stateDir, "sock", "api.sock"), path, agent: false }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        body += c
      })
      res.on("end", () => resolve(body))
    })
    req.on("error", reject)
    req.end()
  })

/** The count of `command`s sent by `source` (0 before the first). */
export const commandCount = async (stateDir: string, command: string, source: string): Promise<number> =>
  sampleValue(parsePrometheus(await socketText(stateDir, "/metrics")), "supervisor_commands_total", {
    command,
    source,
  }) ?? 0
