// Entry of dist/host.cjs: the launcher runs it for `supervisor supervisor run`.
import { hostMain } from "./host/main.js"

// `supervisor supervisor run [--web-port P] [--web-path /prefix] [--boot] [-f|--force]` (also `--flag=value`):
// as SUPERVISOR_WEB_PORT and SUPERVISOR_WEB_PATH do; `--boot` starts the boot_start daemons. The CLI bundle is not loaded here, so the flags
// are read directly; anything else is a usage error, as the CLI would say it.
const FLAGS: Readonly<Record<string, string>> = {
  "--web-port": "SUPERVISOR_WEB_PORT",
  "--web-path": "SUPERVISOR_WEB_PATH",
}
const usageError = (problem: string) => {
  process.stderr.write(`error: ${problem} (see \`supervisor supervisor run --help\`)\n`)
  process.exit(2)
}
const args = process.argv.slice(2).slice(2) // after `supervisor run`
let boot = false
let force = false
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string
  const eq = arg.indexOf("=")
  const name = eq === -1 ? arg : arg.slice(0, eq)
  if (name === "--force" || name === "-f") {
    if (eq !== -1) usageError(`${name} takes no value`)
    force = true
    continue
  }
  if (name === "--boot") {
    if (eq !== -1) usageError("--boot takes no value")
    boot = true
    continue
  }
  const variable = FLAGS[name]
  if (variable === undefined)
    usageError(arg.startsWith("-") ? `unknown option ${name}` : `unexpected argument ${arg}`)
  const value = eq === -1 ? args[++i] : arg.slice(eq + 1)
  if (value === undefined || (eq === -1 && value.startsWith("-"))) usageError(`${name} needs a value`)
  process.env[variable as string] = value
}

hostMain({
  boot,
  force,
  exit: (status) => {
    process.exitCode = status
  },
})
