import * as os from "node:os"
import * as nodePath from "node:path"

type Env = Readonly<Record<string, string | undefined>>

/** `$SUPERVISOR_STATE_DIR`, else `$XDG_STATE_HOME/supervisor`, else `~/.local/state/supervisor`. */
export const stateDir = (env: Env, home = env.HOME || os.homedir()): string =>
  nodePath.resolve(
    env.SUPERVISOR_STATE_DIR ||
      (env.XDG_STATE_HOME
        ? nodePath.join(env.XDG_STATE_HOME, "supervisor")
        : nodePath.join(home, ".local", "state", "supervisor")),
  )

export interface StatePaths {
  readonly dir: string
  readonly stateFile: string
  readonly socket: string
  readonly logsDir: string
  readonly supervisorLog: string
}

export const statePaths = (dir: string): StatePaths => ({
  dir,
  stateFile: nodePath.join(dir, "state.json"),
  socket: nodePath.join(dir, "sock", "api.sock"),
  logsDir: nodePath.join(dir, "logs"),
  supervisorLog: nodePath.join(dir, "logs", "supervisor.log"),
})
