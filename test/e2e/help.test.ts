/**
 * `--help`, `-h` and `supervisor` alone, through the built CLI: the help comes from the CLI's
 * usage spec (the same as docs/cli/ and the man page), names the program in its usage lines, and
 * shows none of @effect/cli's own options or generic value descriptions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSandbox, runCli, type Sandbox } from "./harness.js"

let sb: Sandbox
beforeAll(() => {
  sb = makeSandbox()
})
afterAll(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: sb.root, env: sb.env })

/** What @effect/cli's help printed and ours must not. */
const LIBRARY = [
  /--wizard/,
  /--log-level/,
  /A user-defined piece of text/,
  /This setting is optional/,
  /^\$ /m,
]

const help = (...args: Array<string>) => {
  const r = cli(...args)
  expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0)
  expect(r.stderr).toBe("")
  for (const pattern of LIBRARY) expect(r.stdout, args.join(" ")).not.toMatch(pattern)
  return r.stdout
}

describe("help", () => {
  it("supervisor alone and --help: every command, nested ones by their full name", () => {
    const root = help()
    expect(help("--help")).toBe(root)
    expect(root).toMatch(/^supervisor \d+\.\d+\.\d+: a daemon supervisor for developers\n/)
    expect(root).toContain("Usage: supervisor [FLAGS] [COMMAND]")
    expect(root).toMatch(/^ {2}start, s +start daemons and wait until they are ready$/m)
    // pitchfork's aliases are listed with their commands
    for (const [command, alias] of [
      ["status", "stat"],
      ["list", "ls"],
      ["logs", "l"],
      ["clean", "c"],
      ["disable", "d"],
      ["enable", "e"],
      ["wait", "w"],
      ["run", "r"],
    ])
      expect(root).toMatch(new RegExp(`^ {2}${command}, ${alias} `, "m"))
    expect(root).toMatch(/^ {2}stop, kill +stop daemons/m)
    expect(root).toMatch(/^ {2}config show +print the merged configuration/m)
    expect(root).toMatch(/^ {2}supervisor status +is the supervisor running/m)
    expect(root).toMatch(/^sup: short for supervisor$/m)
    expect(root).toContain("Run `supervisor <COMMAND> --help` for the help of a command.")
  })

  it("--help lists `settings` and `daemons`, which run alone, before their subcommands; not `config` or `spec`", () => {
    const root = help("--help")
    expect(root).toMatch(/^ {2}settings +print every setting as TOML.*\n {2}settings list /m)
    expect(root).toMatch(/^ {2}daemons +list the configured daemons.*\n {2}daemons add /m)
    for (const command of ["config", "spec", "supervisor", "boot", "project"])
      expect(root, command).not.toMatch(new RegExp(`^ {2}${command} {2,}`, "m"))
    expect(help("daemons", "--help")).toContain("Usage: supervisor daemons [FLAGS] [COMMAND]")
    expect(help("spec", "--help")).toContain("Usage: supervisor spec [FLAGS] <COMMAND>")
  })

  it("--help groups the commands: daemons, logs, supervisor, configuration, shell, then the spec tools", () => {
    const root = help("--help")
    const headings = [...root.matchAll(/^([A-Z][a-z]+(?: [a-z]+)?):$/gm)].map((m) => m[1])
    expect(headings).toEqual([
      "Daemons",
      "Logs",
      "Supervisor",
      "Configuration",
      "Shell",
      "Tools",
      "Flags",
      "Exit status",
    ])
    const under = (heading: string) => root.split(`\n${heading}:\n`)[1]!.split("\n\n")[0]!
    expect(under("Daemons")).toMatch(/^ {2}start, s +start daemons/)
    expect(under("Logs")).toMatch(/^ {2}logs, l +show daemon logs/)
    expect(under("Supervisor")).toContain("supervisor status")
    expect(under("Configuration")).toContain("config validate")
    expect(under("Shell")).toMatch(/^ {2}activate +print the shell hook/)
    expect(under("Shell")).toContain("project enter")
    // the hook's own command is hidden
    expect(root).not.toMatch(/^ {2}cd /m)
    // every spec command is a tool, after the daily commands
    const tools = under("Tools")
    for (const sub of ["check", "resolve", "docs", "describe", "sdk", "fmt", "complete"])
      expect(tools).toMatch(new RegExp(`^ {2}spec ${sub} `, "m"))
    expect(under("Daemons")).not.toContain("spec ")
  })

  it("the clearer flag names are in the help with the old ones beside them", () => {
    for (const command of ["start", "restart", "run"])
      expect(help(command, "--help")).toMatch(
        /^ {2}--ready-port, --port <READY_PORT>\n? +ready when this TCP port accepts connections \(a readiness check, not the daemon's port/m,
      )
    expect(help("logs", "--help")).toMatch(/^ {2}--strip-ansi, --raw +strip ANSI colour codes/m)
  })

  it("a command's help: usage line, arguments, flags with their values, exit statuses", () => {
    const start = help("start", "--help")
    expect(start).toMatch(/^supervisor start: start daemons and wait until they are ready\n/)
    expect(start).toContain("Usage: supervisor start [FLAGS] [id]...")
    expect(start).toMatch(/^ {2}--group <GROUP> +the daemons of a group$/m)
    expect(start).toMatch(/^ {2}-l, --local, --all-local +every daemon of the project's files/m)
    expect(start).toMatch(/^ {2}-g, --global, --all-global +every daemon of the global files/m)
    expect(start).toMatch(/^ {2}-h, --help +show the help of a command$/m)
    expect(start).toMatch(/^Exit status:\n {2}0 +success\n/m)
    expect(start).toMatch(/^ {2}124 +a daemon did not become ready in time$/m)
    expect(help("start", "-h")).toBe(start)
    expect(help("start", "web", "--all", "--help")).toBe(start)
  })

  it("aliases and nested commands: the help of the command they name", () => {
    const list = help("ls", "-h")
    expect(list).toMatch(/^supervisor list: /)
    expect(list).toContain("Aliases: ls")
    expect(help("config", "show", "--help")).toMatch(
      /^supervisor config show: print the merged configuration/,
    )
    const config = help("config", "--help")
    // `config` needs a subcommand
    expect(config).toContain("Usage: supervisor config [FLAGS] <COMMAND>")
    expect(config).toMatch(/^ {2}validate +check every configuration file/m)
    // a word that names no subcommand: the help of the command so far
    expect(help("config", "bogus", "--help")).toBe(config)
  })

  it("--completions: the script for a shell, from the usage spec (aliases complete like their commands); without one, or with another, a usage error naming them", () => {
    const bash = cli("--completions", "bash")
    expect(bash.status).toBe(0)
    expect(bash.stdout).toContain("generated from its usage spec")
    // the alias selects its command's completions
    expect(bash.stdout).toMatch(/'0:status' \| '0:stat'\)/)
    for (const shell of ["zsh", "fish"]) expect(cli("--completions", shell).status).toBe(0)
    const none = cli("--completions")
    expect(none.status).toBe(2)
    expect(none.stderr).toBe("error: --completions needs a shell: bash, zsh, fish\n")
    const other = cli("--completions", "tcsh")
    expect(other.status).toBe(2)
    expect(other.stderr).toContain('unknown shell "tcsh"')
  })
})
