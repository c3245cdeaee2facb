// What the CLI's output looks like, without Effect: the exit codes and the colours (only on a
// terminal, and never with NO_COLOR). Shared by the CLI and the quick client (src/quick/).

/** Exit codes of every command: 0 success, 1 failure, 2 usage error. */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const

// set while the supervisor formats a command's output for another process (withoutColors)
let colorsOff = false
export const isTTY = (): boolean => !colorsOff && process.stdout.isTTY === true && !process.env.NO_COLOR

/**
 * `f`'s text without colours, whatever this process's stdout is: the supervisor answering a
 * whole command for the native quick client (src/api/quickAnswer.ts). `f` is synchronous.
 */
export const withoutColors = <A>(f: () => A): A => {
  const before = colorsOff
  colorsOff = true
  try {
    return f()
  } finally {
    colorsOff = before
  }
}

const wrap = (open: number, close: number) => (s: string) =>
  isTTY() ? `\u001b[${open}m${s}\u001b[${close}m` : s
export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const red = wrap(31, 39)
export const green = wrap(32, 39)
export const yellow = wrap(33, 39)
export const cyan = wrap(36, 39)
