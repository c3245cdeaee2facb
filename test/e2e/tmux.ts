import { spawnSync } from "node:child_process"
import { BIN, waitFor } from "./harness.js"

/** A command in a detached tmux session on a private socket: a real pseudo-terminal to drive. */
export interface TmuxSession {
  /** The screen's text now. */
  readonly capture: () => string
  /** `tmux send-keys`: key names (`Enter`, `Escape`, `Down`) or literal text. */
  readonly sendKeys: (...keys: ReadonlyArray<string>) => void
  /** Resizes the window, as a user resizing the terminal: the program gets SIGWINCH. */
  readonly resize: (width: number, height: number) => void
  readonly kill: () => void
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/**
 * Runs `supervisor ARGS` in a `width`x`height` tmux session (its own server on socket `name`),
 * in `cwd` with `env`; once it exits the shell prints `EXIT=<code>` and waits, for a test to read.
 */
export const tmuxCli = (
  name: string,
  args: ReadonlyArray<string>,
  /** `after`: a shell command run once it exited, before the wait (`stty -a`: the terminal's modes). */
  options: { cwd: string; env: Record<string, string>; width?: number; height?: number; after?: string },
): TmuxSession => {
  const tmux = (...a: ReadonlyArray<string>) =>
    spawnSync("tmux", ["-L", name, "-f", "/dev/null", ...a], {
      encoding: "utf8",
      env: options.env,
      timeout: 10_000,
    })
  const vars = Object.entries({ ...options.env, TERM: "xterm-256color" }).flatMap(([k, v]) => [
    "-e",
    `${k}=${v}`,
  ])
  const command = `${[process.execPath, BIN, ...args].map(quote).join(" ")}; echo EXIT=$?; ${options.after === undefined ? "" : `${options.after}; `}sleep 600`
  const started = tmux(
    "new-session",
    "-d",
    "-x",
    String(options.width ?? 160),
    "-y",
    String(options.height ?? 45),
    "-s",
    name,
    "-c",
    options.cwd,
    ...vars,
    command,
  )
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`)
  return {
    capture: () => tmux("capture-pane", "-p", "-t", name).stdout ?? "",
    sendKeys: (...keys) => {
      tmux("send-keys", "-t", name, ...keys)
    },
    resize: (width, height) => {
      const r = tmux("resize-window", "-t", name, "-x", String(width), "-y", String(height))
      if (r.status !== 0) throw new Error(`tmux resize-window failed: ${r.stderr}`)
    },
    kill: () => {
      tmux("kill-server")
    },
  }
}

/** The screen of `session` once `test` holds of it (polled, with a deadline); the last screen in the error. */
export const screenWhere = (
  session: TmuxSession,
  what: string,
  test: (text: string) => boolean,
  timeout = 15_000,
): Promise<string> =>
  waitFor(
    what,
    () => {
      const text = session.capture()
      return test(text) ? text : undefined
    },
    { timeout },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\nscreen:\n${session.capture()}`)
  })
