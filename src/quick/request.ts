// One JSON request to the running supervisor's socket, in plain Node (no Effect, no `node:http`:
// see list.ts and http1.ts).
import { CLI_HEADER, NOTICES_HEADER, printNotices } from "../domain/cliNotices.js"
import { stateDir, statePaths } from "../state/paths.js"
import { exchange, type Reply, readAll as readBody } from "./http1.js"

/** This process's environment without its unset variables (as JSON would send it). */
export const definedEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
  return env
}

const socket = () => statePaths(stateDir(process.env)).socket

/** The reply to a POST of `value` as JSON, or undefined when no supervisor answers. */
export const post = async (
  path: string,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<Reply | undefined> => {
  const reply = await exchange({
    socket: socket(),
    method: "POST",
    path,
    headers: { "content-type": "application/json", [CLI_HEADER]: "1", ...headers },
    body: JSON.stringify(value),
  })
  if (typeof reply === "string") return undefined
  // the autostop notices of an answer, on stderr (src/domain/cliNotices.ts)
  printNotices(reply.headers.get(NOTICES_HEADER))
  return reply
}

/** The whole body of a reply as text, or undefined when it broke off. */
export const readAll = async (reply: Reply): Promise<string | undefined> =>
  (await readBody(reply))?.toString("utf8")

/** The JSON a GET of `path` answers with, or undefined (no supervisor, an error, `timeoutMs` passed). */
export const getJson = async (path: string, timeoutMs: number): Promise<unknown> => {
  // no CLI header: completion runs inside the shell's line editor and prints nothing
  const reply = await exchange({ socket: socket(), method: "GET", path, timeoutMs })
  if (typeof reply === "string") return undefined
  const text = await readAll(reply)
  if (reply.status !== 200 || text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
