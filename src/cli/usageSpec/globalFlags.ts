import type { Flag } from "../../usage/model.js"

/** The global flags of a supervisor at a URL (src/cli/remote.ts takes them out of argv before @effect/cli). */
const remoteFlag = (long: string, arg: string, help: string, env: string): Flag => ({
  usage: `--${long} <${arg}>`,
  long: [long],
  short: [],
  help,
  global: true,
  hide: false,
  variadic: false,
  arg: { name: arg, required: true },
  env,
})
export const REMOTE_GLOBAL_FLAGS: ReadonlyArray<Flag> = [
  remoteFlag(
    "url",
    "URL",
    "talk to the supervisor at this URL (its API listener) instead of this machine's; see docs/remote.md",
    "SUPERVISOR_URL",
  ),
  remoteFlag(
    "token-file",
    "FILE",
    "with --url: read the API token from this file (else SUPERVISOR_API_TOKEN)",
    "SUPERVISOR_API_TOKEN_FILE",
  ),
  remoteFlag(
    "ca",
    "FILE",
    "with --url: trust this CA certificate (the supervisor's <state dir>/proxy/ca.pem) besides the system's",
    "SUPERVISOR_CA",
  ),
]
