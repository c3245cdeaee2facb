// Entry of dist/host.cjs: the launcher runs it for `supervisor supervisor run`.
import { hostMain } from "./host/main.js"

// `supervisor supervisor run [--web-port P] [--web-path /prefix] [--boot] [-f|--force] [--container]
// [--log-format text|json] [--exit-on-failure]` (also `--flag=value`): the first two as
// SUPERVISOR_WEB_PORT and SUPERVISOR_WEB_PATH do; `--boot` starts the boot_start daemons; the last
// three are container mode's (docs/container.md). The CLI bundle is not loaded here, so the flags
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
const switches = new Set<string>()
let logFormat: "text" | "json" | undefined
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string
  const eq = arg.indexOf("=")
  const name = eq === -1 ? arg : arg.slice(0, eq)
  const flag = name === "-f" ? "--force" : name
  if (["--force", "--boot", "--container", "--exit-on-failure"].includes(flag)) {
    if (eq !== -1) usageError(`${name} takes no value`)
    switches.add(flag)
    continue
  }
  if (name === "--log-format") {
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1)
    if (value !== "text" && value !== "json")
      usageError(
        `--log-format takes text or json${value === undefined ? "" : `, not ${JSON.stringify(value)}`}`,
      )
    logFormat = value as "text" | "json"
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
  boot: switches.has("--boot"),
  force: switches.has("--force"),
  container: {
    container: switches.has("--container"),
    logFormat,
    exitOnFailure: switches.has("--exit-on-failure"),
  },
  exit: (status) => {
    process.exitCode = status
  },
})
