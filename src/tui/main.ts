// The dashboard's process (dist/tui.mjs), run by `supervisor tui` (src/cli/actions/tui.ts) with
// its terminal: the arguments `--interval-ms N` and `--namespace NS` (each namespace of the scope,
// `tui --namespace`/`--project` resolved) only; the CLI checked everything else.
import { Effect, Either } from "effect"
import { render } from "ink"
import { createElement } from "react"
import { attachAddress } from "../cli/attachAddress.js"
import { DEFAULT_DETACH_KEY, parseDetachKey } from "../domain/detachKey.js"
import { attachEndReport } from "../terminal/attachEnd.js"
import { attachSession } from "../terminal/attachSession.js"
import { App, type Status } from "./App.js"
import { makeRuntime } from "./connection.js"
import type { UiState } from "./keys.js"

const ENTER_ALT = "\u001b[?1049h\u001b[H"
const LEAVE_ALT = "\u001b[?1049l"
/** The cursor home and the screen cleared: the attached daemon's screen, then the dashboard's, start blank. */
const CLEAR = "\u001b[H\u001b[2J"
const DETACH_KEY = Either.getOrThrow(parseDetachKey(DEFAULT_DETACH_KEY))

/**
 * `a`: the dashboard has let go of the terminal; the attach session has it until the detach key or
 * the daemon's exit (src/terminal/attachSession.ts, as `supervisor attach`). What it ended with is
 * the status line of the dashboard that comes back.
 */
const attachTo = async (id: string): Promise<Status | { readonly exit: number }> => {
  process.stdout.write(CLEAR)
  try {
    const address = await Effect.runPromise(attachAddress(id))
    const end = await attachSession({
      address,
      detachKey: DETACH_KEY,
      input: process.stdin,
      output: process.stdout,
    })
    const report = attachEndReport(id, end)
    // a signal to the dashboard (SIGTERM, SIGHUP) ends it, not only the session
    if (end._tag === "Signalled") return { exit: report.code }
    return { text: report.text, tone: report.failed ? "error" : "ok" }
  } catch (e) {
    return { text: e instanceof Error ? e.message : String(e), tone: "error" }
  } finally {
    process.stdout.write(CLEAR)
  }
}

const main = async () => {
  const i = process.argv.indexOf("--interval-ms")
  const intervalMs = i >= 0 ? Number(process.argv[i + 1]) : 5000
  const scope = process.argv.flatMap((a, j) => (a === "--namespace" ? [process.argv[j + 1] ?? ""] : []))
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
  let ui: UiState | undefined
  let status: Status | undefined
  for (;;) {
    let attach: string | undefined
    const app = render(
      createElement(App, {
        runtime,
        intervalMs: Number.isFinite(intervalMs) ? intervalMs : 5000,
        scope,
        ...(ui === undefined ? {} : { ui }),
        ...(status === undefined ? {} : { status }),
        onAttach: (id, at) => {
          attach = id
          ui = at
        },
      }),
      {
        exitOnCtrlC: false,
        patchConsole: false,
      },
    )
    await app.waitUntilExit()
    app.cleanup()
    if (attach === undefined) break
    const after = await attachTo(attach)
    if ("exit" in after) {
      await runtime.dispose()
      process.exit(after.exit)
    }
    status = after
  }
  await runtime.dispose()
  process.exit(0)
}

void main()
