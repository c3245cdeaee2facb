// Where the attach WebSocket of a daemon is (docs/attach.md): on the supervisor's Unix socket,
// or at `--url` (SUPERVISOR_URL) with its token and CA (src/cli/remote.ts).
import { Effect } from "effect"
import { attachPath } from "../domain/Attach.js"
import { stateDir, statePaths } from "../state/paths.js"
import type { AttachAddress } from "../terminal/attachSession.js"
import { isRemote, type RemoteProblem, remoteTarget } from "./remote.js"

/** The attach address of daemon `id` (a qualified ID) for the supervisor `env` points at. */
export const attachAddress = (
  id: string,
  env: NodeJS.ProcessEnv = process.env,
): Effect.Effect<AttachAddress, RemoteProblem> =>
  isRemote(env)
    ? Effect.map(remoteTarget(env), (target) => ({
        url: `${target.url.replace(/^http/, "ws")}${attachPath(id)}`,
        headers: { "X-Supervisor-Token": target.token },
        ca: target.ca,
      }))
    : Effect.sync(() => ({
        url: `ws+unix://${statePaths(stateDir(env)).socket}:${attachPath(id)}`,
        headers: {},
      }))
