// The dashboard's process (dist/tui.mjs), run by `supervisor tui` (src/cli/actions/tui.ts) with
// its terminal: the argument `--interval-ms N` only; the CLI checked everything else.
import { render } from "ink"
import { createElement } from "react"
import { App } from "./App.js"
import { makeRuntime } from "./connection.js"

const ENTER_ALT = "\u001b[?1049h\u001b[H"
const LEAVE_ALT = "\u001b[?1049l"

const main = async () => {
  const i = process.argv.indexOf("--interval-ms")
  const intervalMs = i >= 0 ? Number(process.argv[i + 1]) : 5000
  const runtime = makeRuntime()
  // a supervisor that cannot be reached now is told before the screen changes
  try {
    await runtime.runtime()
  } catch (e) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
    return
  }
  // the alternate screen, as htop and less use it: the shell's screen comes back on quit
  process.stdout.write(ENTER_ALT)
  const restore = () => process.stdout.write(LEAVE_ALT)
  process.once("exit", restore)
  const app = render(
    createElement(App, { runtime, intervalMs: Number.isFinite(intervalMs) ? intervalMs : 5000 }),
    {
      exitOnCtrlC: false,
      patchConsole: false,
    },
  )
  await app.waitUntilExit()
  app.cleanup()
  await runtime.dispose()
  process.exit(0)
}

void main()
