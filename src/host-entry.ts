// Entry of dist/host.cjs: the launcher runs it for `supervisor supervisor run`.
import { hostMain } from "./host/main.js"

// `supervisor supervisor run --web-port P` (or `--web-port=P`): the web UI on port P, as
// SUPERVISOR_WEB_PORT does. The CLI bundle is not loaded here, so the flag is read directly.
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string
  if (arg === "--web-port" && args[i + 1] !== undefined) process.env.SUPERVISOR_WEB_PORT = args[i + 1]
  else if (arg.startsWith("--web-port=")) process.env.SUPERVISOR_WEB_PORT = arg.slice("--web-port=".length)
}

hostMain()
