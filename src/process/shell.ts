import { type ChildProcess, type StdioOptions, spawn } from "node:child_process"

/** A command run through the daemon's shell, as the daemon runs: its dir, environment and user. */
export interface ShellCommand {
  readonly run: string
  /** e.g. `["sh", "-c"]`; `run` is appended. */
  readonly shell: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly uid?: number
  readonly gid?: number
}

/**
 * Starts `<shell...> <run>` as the leader of a new process group (so that `ProcessService.signalGroup` ends all
 * it started). Throws where `child_process.spawn` throws; attach an 'error' listener at once.
 */
export const spawnShell = (cmd: ShellCommand, stdio: StdioOptions): ChildProcess => {
  const [program, ...args] = cmd.shell
  return spawn(program ?? "sh", [...args, cmd.run], {
    cwd: cmd.cwd,
    env: cmd.env,
    stdio,
    detached: true,
    ...(cmd.uid !== undefined ? { uid: cmd.uid } : {}),
    ...(cmd.gid !== undefined ? { gid: cmd.gid } : {}),
  })
}
