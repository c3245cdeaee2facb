// One JSON POST to the running supervisor's socket, in plain Node (no Effect: see list.ts).
import * as http from "node:http"
import * as net from "node:net"
import { CLI_HEADER, NOTICES_HEADER, printNotices } from "../domain/cliNotices.js"
import { stateDir, statePaths } from "../state/paths.js"

/** Prints the autostop notices of an answer on stderr (src/domain/cliNotices.ts). */
const noticed = (response: http.IncomingMessage): http.IncomingMessage => {
  printNotices(response.headers[NOTICES_HEADER])
  return response
}

/** This process's environment without its unset variables (as JSON would send it). */
export const definedEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
  return env
}

/** The response to a POST of `value` as JSON, or undefined when no supervisor answers. */
export const post = (
  path: string,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<http.IncomingMessage | undefined> =>
  new Promise((resolve) => {
    const body = JSON.stringify(value)
    const request = http.request(
      {
        // Our own connection and no agent: an agent (even `agent: false`, a fresh one) works out
        // a TLS server name from the host, and the first `net.isIP` compiles a large regular
        // expression, 5-6 ms of every quick command.
        createConnection: () => net.connect(statePaths(stateDir(process.env)).socket),
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          [CLI_HEADER]: "1",
          ...headers,
        },
      },
      (response) => resolve(noticed(response)),
    )
    request.on("error", () => resolve(undefined))
    request.end(body)
  })

/** The whole body of a response as text, or undefined when it broke off. */
export const readAll = (response: http.IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("error", () => resolve(undefined))
    response.on("aborted", () => resolve(undefined))
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

/** The JSON a GET of `path` answers with, or undefined (no supervisor, an error, `timeoutMs` passed). */
export const getJson = (path: string, timeoutMs: number): Promise<unknown> =>
  new Promise((resolve) => {
    const request = http.request(
      {
        createConnection: () => net.connect(statePaths(stateDir(process.env)).socket),
        path,
        method: "GET",
      },
      // no CLI header: completion runs inside the shell's line editor and prints nothing
      (response) => {
        if (response.statusCode !== 200) {
          response.resume()
          return resolve(undefined)
        }
        readAll(response).then((text) => {
          try {
            resolve(text === undefined ? undefined : JSON.parse(text))
          } catch {
            resolve(undefined)
          }
        })
      },
    )
    request.setTimeout(timeoutMs, () => {
      request.destroy()
      resolve(undefined)
    })
    request.on("error", () => resolve(undefined))
    request.end()
  })
