// What `supervisor supervisor start --force` carries from the running supervisor to the next:
// its TCP listeners, as the variables that open them (src/host/listeners.ts).

import { isLoopback } from "../host/tcp.js"

/** The URLs of the running supervisor's listeners (`web_url`, `api_url` of its info). */
export interface ListenerUrls {
  readonly web_url: string | null
  readonly api_url: string | null
}

const portOf = (url: URL): string => url.port || (url.protocol === "https:" ? "443" : "80")

/**
 * The variables that open the same listeners again: the web UI's port and path
 * (`SUPERVISOR_WEB_PORT`, `SUPERVISOR_WEB_PATH`) and the API listener's port
 * (`SUPERVISOR_API_PORT`). The bound ports, so a listener started on port 0 keeps the port it
 * got. A URL that does not parse is left out (that listener then follows the settings).
 */
export const keptListenerEnv = (urls: ListenerUrls): Record<string, string> => {
  const env: Record<string, string> = {}
  const web = parse(urls.web_url)
  if (web !== undefined) {
    env.SUPERVISOR_WEB_PORT = portOf(web)
    env.SUPERVISOR_WEB_PATH = web.pathname
  }
  const api = parse(urls.api_url)
  if (api !== undefined) env.SUPERVISOR_API_PORT = portOf(api)
  return env
}

/** The listeners' URLs whose host is not a loopback address (they get the plain-HTTP warning). */
export const nonLoopbackUrls = (urls: ListenerUrls): Array<string> =>
  [urls.web_url, urls.api_url].filter((url): url is string => {
    const u = parse(url)
    return u !== undefined && !isLoopback(u.hostname.replace(/^\[(.*)\]$/, "$1"))
  })

const parse = (url: string | null): URL | undefined => {
  if (url === null) return undefined
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}
